// The people around a table besides its players: the spectators (a count, the names
// in its title and a list on click) and "Invita un amico", which copies the link a
// friend opens to sit (a private table's link carries its invite token).
import { plural, t } from "./i18n.js";
import { h } from "./table-dom.js";

export class TablePeople {
  constructor(conn, tableId, invite) {
    this.conn = conn;
    this.id = tableId;
    this.invite = invite || null;
    this.watchers = conn.tables?.get(tableId)?.watchers || { count: 0, names: [] };
    this.view = null;
    this.el = h("div", { class: "table-people" });
    this.onWatchers = (e) => {
      if (e.detail.table !== this.id) return;
      this.watchers = { count: e.detail.count, names: e.detail.names };
      this.render();
    };
    conn.addEventListener("watchers", this.onWatchers);
  }

  destroy() {
    this.conn.removeEventListener("watchers", this.onWatchers);
  }

  update(view) {
    this.view = view;
    this.render();
  }

  // A public table's page, or a private one's invite link (only when we hold its token).
  link() {
    const v = this.view;
    if (!v || v.status === "finished" || v.status === "closed") return null;
    if (!v.config.private) return `${location.origin}/table/${this.id}`;
    return this.invite ? `${location.origin}/table/${this.id}?invite=${encodeURIComponent(this.invite)}` : null;
  }

  render() {
    const { count, names } = this.watchers;
    const parts = [];
    if (count > 0) {
      const label = plural("table.watchers", count);
      const list = names.length ? t("table.watchers.list", { names: names.join(", ") }) : label;
      parts.push(h("details", { class: "watchers", dataset: { count } },
        h("summary", { title: list, "aria-label": list }, "\u{1F441}\uFE0E ", label),
        names.length ? h("ul", { class: "watcher-names" }, names.map((n) => h("li", {}, n))) : null));
    }
    const link = this.link();
    if (link) {
      const status = h("p", { class: "invite-status", role: "status", hidden: true });
      const button = h("button", { type: "button", class: "invite-friend", dataset: { link }, onclick: () => this.copy(link, status) }, t("table.invite_button"));
      parts.push(h("div", { class: "invite-box" }, button, status));
    }
    this.el.replaceChildren(...parts);
  }

  // The clipboard when the browser lets us; the link shown, selected, either way.
  async copy(link, status) {
    let copied = false;
    try {
      await navigator.clipboard.writeText(link);
      copied = true;
    } catch {
      copied = false;
    }
    const input = h("input", { type: "text", readonly: true, value: link, class: "invite-copy", "aria-label": t("table.invite_button") });
    status.replaceChildren(copied ? t("table.invite.copied") : t("table.invite.copy_failed"), " ", input);
    status.hidden = false;
    input.select();
  }
}
