// "Your bots" on the profile (docs/bots.md): the player's bot accounts, a form to make
// one, and per bot its tokens: make one with scopes (its secret is shown once, with a
// copy button, since the server keeps only its hash), list them, revoke one.
import { api } from "../api.js";
import { t } from "../i18n.js";
import { botBadge, fill, h, uid } from "./dom.js";
import { readableError } from "./errors.js";

const SCOPES = ["play", "read", "tournament"];

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : t("bots.never");
}

// The panel; `notify(text, kind)` is the page's toast.
export function botsPanel(notify) {
  const list = h("div", { class: "bots-list", "aria-live": "polite" }, h("p", { class: "muted" }, t("bots.loading")));
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const nameId = uid("b");
  const name = h("input", { id: nameId, name: "bot_name", required: true, maxlength: 64, autocomplete: "off" });
  const submit = h("button", { type: "submit", class: "primary", name: "create_bot" }, t("bots.create"));
  const create = h("form", { class: "form bot-create", novalidate: true },
    h("div", { class: "field" }, h("label", { for: nameId }, t("bots.name")), name),
    submit);
  const panel = h("section", { class: "panel bots", "aria-labelledby": `${nameId}-title` },
    h("h2", { id: `${nameId}-title` }, t("bots.title")),
    h("p", { class: "muted" }, t("bots.intro")),
    list, error, create);

  function fail(err) {
    error.textContent = readableError(err);
    error.hidden = false;
  }

  create.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    const wanted = name.value.trim();
    submit.disabled = true; // one bot a click, however slow the answer
    try {
      await api("POST", "/api/bots", { name: wanted });
      // a name typed while the answer was on its way is the player's next one: kept
      if (name.value.trim() === wanted) name.value = "";
      notify(t("bots.created"), "ok");
      load();
    } catch (err) {
      fail(err);
    } finally {
      submit.disabled = false;
    }
  });

  async function load() {
    try {
      const { bots } = await api("GET", "/api/bots");
      fill(list, bots.length
        ? h("ul", { class: "bots-items" }, bots.map((b) => botItem(b)))
        : h("p", { class: "muted" }, t("bots.none")));
    } catch (err) {
      fail(err);
    }
  }

  function botItem(bot) {
    const tokens = h("div", { class: "bot-tokens" });
    const secret = h("div", { class: "bot-secret", hidden: true });
    const tokenNameId = uid("b");
    const tokenName = h("input", { id: tokenNameId, name: "token_name", value: "token", maxlength: 40 });
    const boxes = SCOPES.map((s) => {
      const id = uid("b");
      return { s, input: h("input", { type: "checkbox", id, name: `scope_${s}`, checked: s !== "tournament" }), id };
    });
    const form = h("form", { class: "form bot-token-form", novalidate: true },
      h("div", { class: "field" }, h("label", { for: tokenNameId }, t("bots.token_name")), tokenName),
      h("fieldset", { class: "scopes" }, h("legend", {}, t("bots.scopes")),
        boxes.map(({ s, input, id }) => h("span", { class: "check" }, input, h("label", { for: id }, t(`bots.scope.${s}`))))),
      h("button", { type: "submit", name: "create_token" }, t("bots.create_token")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      error.hidden = true;
      const scopes = boxes.filter((b) => b.input.checked).map((b) => b.s);
      try {
        const made = await api("POST", `/api/bots/${encodeURIComponent(bot.name)}/tokens`, { name: tokenName.value.trim() || "token", scopes });
        showSecret(secret, made.token);
        loadTokens();
      } catch (err) {
        fail(err);
      }
    });

    async function loadTokens() {
      try {
        const data = await api("GET", `/api/bots/${encodeURIComponent(bot.name)}/tokens`);
        fill(tokens, data.tokens.length
          ? h("ul", { class: "token-items" }, data.tokens.map((tok) => h("li", { class: "token-item", dataset: { token: tok.id } },
            h("strong", {}, tok.name), " ",
            h("span", { class: "token-scopes" }, tok.scopes.map((s) => t(`bots.scope.${s}`)).join(", ")), " ",
            h("span", { class: "muted" }, t("bots.last_used", { when: when(tok.last_used_at) })), " ",
            h("button", { type: "button", class: "danger small", name: "revoke", onclick: () => revoke(tok) }, t("bots.revoke")))))
          : h("p", { class: "muted" }, t("bots.no_tokens")));
      } catch (err) {
        fail(err);
      }
    }

    async function revoke(tok) {
      if (!window.confirm(t("bots.revoke_confirm", { name: tok.name }))) return;
      try {
        await api("DELETE", `/api/bots/${encodeURIComponent(bot.name)}/tokens/${encodeURIComponent(tok.id)}`);
        notify(t("bots.revoked"), "ok");
        secret.hidden = true;
        loadTokens();
      } catch (err) {
        fail(err);
      }
    }

    loadTokens();
    return h("li", { class: "bot-item", dataset: { bot: bot.name } },
      h("h3", {}, bot.name, " ", botBadge({ owner: bot.owner || null })),
      tokens, secret, form);
  }

  load();
  return panel;
}

// The token's secret, shown this once with a copy button.
function showSecret(box, token) {
  const field = h("input", { type: "text", readonly: true, value: token, class: "token-secret", "aria-label": t("bots.secret_label") });
  const status = h("span", { class: "muted", role: "status" });
  const copy = h("button", {
    type: "button", name: "copy",
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(token);
        status.textContent = t("bots.copied");
      } catch {
        field.select();
        status.textContent = t("bots.copy_manually");
      }
    },
  }, t("bots.copy"));
  fill(box, h("p", { class: "warning" }, t("bots.secret_once")), h("div", { class: "secret-row" }, field, copy, status));
  box.hidden = false;
}
