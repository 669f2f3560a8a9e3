// The table's "Opzioni" popover: automatic declaration (B8; seed 000 lets it be
// switched "dal tavolo ... agendo sulle apposite selezioni"), the deck style, sound and
// volume. Each takes effect at once and is saved in the player's options like the
// profile page does (the same options stay editable there). A game without
// declarations or with one deck style (Cirulo) leaves those fields out.
import { api } from "./api.js";
import { STYLES } from "./cards.js";
import { t } from "./i18n.js";
import { adoptOptions, setSoundSettings, soundSettings, playSound } from "./sound.js";
import { fill, h } from "./table-dom.js";
import { readableError } from "./pages/errors.js";

let counter = 0;

// The popover of a table page (table.js, cirulo-table.js), with the player's sound
// options adopted; `autoDeclare` and `styles` (the deck styles offered) as for TableOptions.
export function tableOptions(page, ctx, { autoDeclare = true, styles = STYLES } = {}) {
  adoptOptions(ctx.user ? ctx.user.options : ctx.options);
  return new TableOptions({
    ctx,
    autoDeclare,
    styles,
    style: () => page.style,
    onStyle: (style) => page.setStyle(style),
    onError: (text) => page.toast(text),
  });
}

export class TableOptions {
  // ctx: the page's context (user, conn, setUser); style(): the deck drawn now;
  // onStyle(style) redraws the table; onError(text) shows a failure. `autoDeclare`:
  // the game has declarations; `styles`: the deck styles to choose from (none: no field).
  constructor({ ctx, style, onStyle, onError, autoDeclare = true, styles = STYLES }) {
    this.ctx = ctx;
    this.autoDeclare = autoDeclare;
    this.styles = styles && styles.length > 1 ? styles : [];
    this.style = style;
    this.onStyle = onStyle;
    this.onError = onError;
    this.id = `topt-${(counter += 1)}`;
    this.el = h("details", { class: "table-options" });
    this.onSound = () => this.showSound();
    window.addEventListener("soundchange", this.onSound);
    this.onOutside = (e) => {
      if (this.el.open && !this.el.contains(e.target)) this.el.open = false;
    };
    document.addEventListener("pointerdown", this.onOutside);
    this.el.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.el.open) {
        this.el.open = false;
        this.el.querySelector("summary").focus();
        e.stopPropagation();
      }
    });
    this.render();
  }

  destroy() {
    window.removeEventListener("soundchange", this.onSound);
    document.removeEventListener("pointerdown", this.onOutside);
  }

  options() {
    return (this.ctx.user && this.ctx.user.options) || this.ctx.options || {};
  }

  // (Again after a change of language.)
  render() {
    const id = this.id;
    const sound = soundSettings();
    this.auto = h("input", { type: "checkbox", id: `${id}-auto`, name: "auto_declare", checked: this.options().auto_declare !== false });
    this.auto.addEventListener("change", () => this.setAutoDeclare(this.auto.checked));
    this.deck = h("select", { id: `${id}-deck`, name: "deck_style" },
      this.styles.map((s) => h("option", { value: s, selected: s === this.style() }, t(`deck.${s}`))));
    this.deck.addEventListener("change", () => this.setStyle(this.deck.value));
    this.sound = h("input", { type: "checkbox", id: `${id}-sound`, name: "sound", checked: sound.on });
    this.sound.addEventListener("change", () => this.setSound({ on: this.sound.checked }));
    this.volume = h("input", { type: "range", id: `${id}-volume`, name: "volume", min: 0, max: 100, step: 5, value: sound.volume });
    this.volume.addEventListener("input", () => setSoundSettings({ volume: Number(this.volume.value) }));
    this.volume.addEventListener("change", () => {
      this.setSound({ volume: Number(this.volume.value) });
      playSound("turn"); // hear the new volume
    });
    fill(this.el,
      h("summary", { class: "table-options-button" }, t("options.button")),
      h("div", { class: "table-options-panel", role: "group", "aria-label": t("options.title") },
        this.autoDeclare ? h("div", { class: "check" }, this.auto, h("label", { for: `${id}-auto` }, t("profile.auto_declare"))) : null,
        this.styles.length ? h("div", { class: "field" }, h("label", { for: `${id}-deck` }, t("profile.deck_style")), this.deck) : null,
        h("div", { class: "check" }, this.sound, h("label", { for: `${id}-sound` }, t("options.sound"))),
        h("div", { class: "field" }, h("label", { for: `${id}-volume` }, t("options.volume")), this.volume)));
    this.showSound();
  }

  showSound() {
    const s = soundSettings();
    this.sound.checked = s.on;
    this.volume.value = String(s.volume);
    this.volume.disabled = !s.on;
  }

  // The user's options as the server now has them (for the profile page and later tables).
  adopt(user) {
    if (this.ctx.setUser) this.ctx.setUser(user, { adoptLanguage: false });
    this.ctx.user = user;
  }

  async save(changes) {
    try {
      const data = await api("PUT", "/api/me/options", changes);
      this.adopt(data.user);
      return true;
    } catch (err) {
      this.onError(readableError(err));
      return false;
    }
  }

  // Over the socket it changes the seat at this table at once; saved like the profile
  // saves it (the socket alone leaves the server's cached user as it was).
  async setAutoDeclare(on) {
    const answer = await this.ctx.conn.send({ type: "auto_declare", on });
    if (answer.type === "error") {
      this.auto.checked = !on;
      this.onError(readableError(answer));
      return;
    }
    await this.save({ auto_declare: on });
  }

  setStyle(style) {
    this.onStyle(style);
    this.save({ deck_style: style });
  }

  // Sound changes are heard at once and remembered in this browser even if saving fails.
  setSound(changes) {
    setSoundSettings(changes);
    const s = soundSettings();
    this.save({ sound: s.on, volume: s.volume });
  }
}
