// The profile: the account (a guest may claim it with a name and password), the
// options (automatic declaration B8, deck style C2, language, sound), log out.
import { api } from "../api.js";
import { LANGUAGES, language, setLanguage, t } from "../i18n.js";
import { credentialsForm } from "./auth.js";
import { botsPanel } from "./profile-bots.js";
import { h, fill, uid } from "./dom.js";
import { readableError } from "./errors.js";
import { setSoundSettings, soundSettings } from "../sound.js";

const FALLBACK_STYLES = ["french", "napoletane", "piacentine"];

// A preview of the style's 7 of diamonds; a plain drawn card when the SVG is missing.
export function deckPreview(style) {
  const fallback = () => h("span", { class: "card-fallback", "aria-hidden": "true" },
    h("span", { class: "rank" }, "7"), h("span", { class: "suit" }, "♦"));
  const box = h("div", { class: "deck-preview", dataset: { style } });
  const img = h("img", {
    src: `/static/decks/${encodeURIComponent(style)}/7D.svg`,
    alt: t("profile.preview_alt", { style: t(`deck.${style}`) }),
    width: 90, height: 140,
  });
  img.addEventListener("error", () => fill(box, fallback()));
  box.appendChild(img);
  return box;
}

export function mountProfile(root, ctx) {
  let user = ctx.user;
  let styles = FALLBACK_STYLES;
  let styleSelect = null; // the options form's deck style: the only part the choices change
  const page = h("section", { class: "page profile" });
  root.appendChild(page);

  // Only the deck styles are refreshed when the choices come: drawing the page again
  // would throw away what the player may have typed in the meantime (the claim form).
  api("GET", "/api/choices").then((c) => {
    if (Array.isArray(c.deck_styles) && c.deck_styles.length) {
      styles = c.deck_styles;
      if (styleSelect) {
        const chosen = styles.includes(styleSelect.value) ? styleSelect.value : styles[0];
        fill(styleSelect, styleOptions(chosen));
        styleSelect.value = chosen;
        styleSelect.dispatchEvent(new Event("change"));
      }
    }
  }, () => {});

  function styleOptions(current) {
    return styles.map((s) => h("option", { value: s, selected: s === current }, t(`deck.${s}`)));
  }

  function render() {
    fill(page,
      h("h1", {}, t("profile.title")),
      h("div", { class: "profile-grid" },
        accountPanel(),
        optionsPanel(),
        user.guest || user.bot ? null : botsPanel((text, kind) => ctx.notify(text, kind))));
  }

  function accountPanel() {
    const panel = h("section", { class: "panel account" },
      h("h2", {}, t("profile.account")),
      h("p", {}, t("profile.name"), " ", h("strong", { class: "account-name" }, user.name)),
      h("p", { class: "muted" }, user.guest ? t("profile.guest_text") : t("profile.registered_text")));
    if (user.guest) {
      const { form } = credentialsForm({
        path: "/api/claim",
        submitLabel: t("profile.claim"),
        newAccount: true,
        done(claimed) {
          user = claimed;
          ctx.setUser(claimed, { adoptLanguage: false });
          ctx.notify(t("profile.claimed", { name: claimed.name }), "ok");
          render();
        },
      });
      form.classList.add("claim-form");
      panel.append(h("h3", {}, t("profile.claim_title")), form);
    }
    panel.append(h("p", {},
      h("button", { type: "button", class: "danger", name: "logout", onclick: () => ctx.logout() }, t("nav.logout"))));
    return panel;
  }

  function optionsPanel() {
    const opts = user.options || {};
    const autoId = uid("p");
    const auto = h("input", { type: "checkbox", id: autoId, name: "auto_declare", checked: opts.auto_declare !== false, "aria-describedby": `${autoId}-help` });
    const styleId = uid("p");
    const current = styles.includes(opts.deck_style) ? opts.deck_style : styles[0];
    const preview = h("div", { class: "preview-slot" }, deckPreview(current));
    const style = h("select", {
      id: styleId, name: "deck_style",
      onchange: (e) => fill(preview, deckPreview(e.target.value)),
    }, styleOptions(current));
    styleSelect = style;
    const langId = uid("p");
    const lang = h("select", { id: langId, name: "language" },
      LANGUAGES.map((l) => h("option", { value: l, lang: l, selected: l === language() }, t(`language.${l}`))));
    // sound at the table (docs/sound.md): the server's option, else this browser's
    const heard = soundSettings();
    const soundId = uid("p");
    const sound = h("input", { type: "checkbox", id: soundId, name: "sound", checked: typeof opts.sound === "boolean" ? opts.sound : heard.on });
    const volumeId = uid("p");
    const volume = h("input", { type: "range", id: volumeId, name: "volume", min: 0, max: 100, step: 5, value: Number.isInteger(opts.volume) ? opts.volume : heard.volume });
    const message = h("p", { class: "saved", role: "status" });
    const error = h("p", { class: "error", role: "alert", hidden: true });
    const save = h("button", { type: "submit", class: "primary", name: "save" }, t("profile.save"));
    const form = h("form", { class: "form options-form", novalidate: true },
      h("h2", {}, t("profile.options")),
      h("div", { class: "check" },
        auto,
        h("label", { for: autoId }, t("profile.auto_declare"), h("span", { class: "rule-ref" }, " B8")),
        h("small", { id: `${autoId}-help`, class: "hint" }, t("profile.auto_declare_help"))),
      h("div", { class: "field deck-field" },
        h("label", { for: styleId }, t("profile.deck_style"), h("span", { class: "rule-ref" }, " C2")),
        h("div", { class: "deck-row" }, style, preview)),
      h("div", { class: "field" },
        h("label", { for: langId }, t("profile.language")),
        lang),
      h("div", { class: "check" }, sound, h("label", { for: soundId }, t("profile.sound"))),
      h("div", { class: "field" }, h("label", { for: volumeId }, t("profile.volume")), volume),
      error,
      save,
      message);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      error.hidden = true;
      message.textContent = "";
      save.disabled = true;
      const changes = {
        auto_declare: auto.checked, deck_style: style.value, language: lang.value,
        sound: sound.checked, volume: Number(volume.value),
      };
      try {
        const data = await api("PUT", "/api/me/options", changes);
        user = data.user;
        ctx.setUser(data.user, { adoptLanguage: false });
        setSoundSettings({ on: changes.sound, volume: changes.volume });
        if (ctx.conn) {
          // Also now, at the tables the player sits at (sent again after a reconnect).
          ctx.conn.send({ type: "auto_declare", on: changes.auto_declare }).then((answer) => {
            if (answer.type === "error") ctx.notify(readableError(answer), "error");
          });
        }
        if (changes.language !== language()) {
          // saved above: only the switch, awaited so that the notice is in the new language
          await setLanguage(changes.language); // re-renders this page in it
          ctx.notify(t("profile.saved"), "ok");
          return;
        }
        message.textContent = t("profile.saved");
        save.disabled = false;
      } catch (err) {
        error.textContent = readableError(err);
        error.hidden = false;
        save.disabled = false;
      }
    });
    return h("section", { class: "panel" }, form);
  }

  render();
  return { unmount() {} };
}
