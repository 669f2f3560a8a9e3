// The welcome page: play at once as a guest, or log in / register.
import { api } from "../api.js";
import { t } from "../i18n.js";
import { h, link } from "./dom.js";
import { readableError } from "./errors.js";
import { firstDeck } from "./first-deck.js";

export function mountWelcome(root, ctx) {
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const guest = h("button", { type: "button", class: "primary big", onclick: playAsGuest }, t("welcome.guest"));

  async function playAsGuest() {
    guest.disabled = true;
    error.hidden = true;
    try {
      const data = await api("POST", "/api/guest");
      ctx.setUser(await firstDeck(data.user), { adoptLanguage: false });
      ctx.navigate(ctx.next || "/lobby");
    } catch (err) {
      error.textContent = readableError(err);
      error.hidden = false;
      guest.disabled = false;
    }
  }

  const after = ctx.next ? `?next=${encodeURIComponent(ctx.next)}` : "";
  root.appendChild(
    h("section", { class: "page welcome" },
      h("div", { class: "hero" },
        h("div", { class: "hero-cards", "aria-hidden": "true" },
          ["7♥", "A♣", "5♦"].map((c, i) => h("span", { class: ["hero-card", `hero-card-${i}`] }, c))),
        h("h1", {}, t("welcome.title")),
        h("p", { class: "lead" }, t("welcome.lead")),
        guest,
        error,
        h("p", { class: "muted" }, t("welcome.guest_note")),
        h("p", { class: "welcome-links" },
          link(`/login${after}`, t("welcome.login"), { class: "button" }),
          link(`/register${after}`, t("welcome.register"), { class: "button" }))),
      h("ul", { class: "features" },
        ["rules", "bots", "friends"].map((k) =>
          h("li", {}, h("strong", {}, t(`welcome.feature.${k}`)), " ", t(`welcome.feature.${k}.text`))))));
  return { unmount() {} };
}
