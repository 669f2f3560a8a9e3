// Log in and register: a name and a password; the server's errors shown readably.
import { api } from "../api.js";
import { t } from "../i18n.js";
import { h, link, uid } from "./dom.js";
import { readableError } from "./errors.js";
import { firstDeck } from "./first-deck.js";

// A labelled input; returns [row, input].
export function field(label, attrs, hint) {
  const id = uid("f");
  const hintId = hint ? `${id}-hint` : null;
  const input = h("input", { id, "aria-describedby": hintId, ...attrs });
  const row = h("div", { class: "field" },
    h("label", { for: id }, label),
    input,
    hint ? h("small", { id: hintId, class: "hint" }, hint) : null);
  return [row, input];
}

// A name + password form posting to `path`; calls done(user) on success.
export function credentialsForm({ path, submitLabel, newAccount, done }) {
  const [nameRow, name] = field(t("auth.name"), {
    name: "name", autocomplete: "username", required: true, maxlength: 64, autocapitalize: "none", spellcheck: "false",
  }, newAccount ? t("auth.name_hint") : null);
  const [passRow, password] = field(t("auth.password"), {
    name: "password", type: "password", required: true, maxlength: 200,
    autocomplete: newAccount ? "new-password" : "current-password",
  }, newAccount ? t("auth.password_hint") : null);
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", class: "primary" }, submitLabel);
  const form = h("form", { class: "form auth-form", novalidate: true }, nameRow, passRow, error, submit);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    if (!name.value.trim() || !password.value) {
      error.textContent = t("auth.missing");
      error.hidden = false;
      return;
    }
    submit.disabled = true;
    try {
      const data = await api("POST", path, { name: name.value.trim(), password: password.value });
      await done(data.user);
    } catch (err) {
      error.textContent = readableError(err);
      error.hidden = false;
      submit.disabled = false;
      password.select();
    }
  });
  return { form, name, password, error };
}

function mountAuth(root, ctx, mode) {
  const isLogin = mode === "login";
  const { form, name } = credentialsForm({
    path: isLogin ? "/api/login" : "/api/register",
    submitLabel: t(isLogin ? "auth.login" : "auth.register"),
    newAccount: !isLogin,
    async done(user) {
      ctx.setUser(isLogin ? user : await firstDeck(user), { adoptLanguage: isLogin });
      ctx.navigate(ctx.next || "/lobby");
    },
  });
  const after = ctx.next ? `?next=${encodeURIComponent(ctx.next)}` : "";
  root.appendChild(
    h("section", { class: "page narrow" },
      h("h1", {}, t(isLogin ? "auth.login_title" : "auth.register_title")),
      form,
      h("p", { class: "muted" },
        isLogin ? t("auth.no_account") : t("auth.have_account"), " ",
        link(`${isLogin ? "/register" : "/login"}${after}`, t(isLogin ? "auth.register" : "auth.login")),
        h("br"),
        t("auth.or_guest"), " ",
        link(`/${after}`, t("welcome.guest")))));
  name.focus();
  return { unmount() {} };
}

export function mountLogin(root, ctx) {
  return mountAuth(root, ctx, "login");
}

export function mountRegister(root, ctx) {
  return mountAuth(root, ctx, "register");
}
