// The mark of a bot account (docs/bots.md, issue 17): a program plays under this name,
// so people see it wherever the name is shown (seats, lobby, profiles, leaderboards,
// history, replays, tournaments). Built-in server bots keep their level chip instead.
import { t } from "./i18n.js";
import { h } from "./pages/dom.js";

// A "BOT" badge; `owner` (when the data has it) is named in it; `cls` is the look of the
// place ("badge" on the pages, "chip" at the table).
export function botBadge({ owner = null, cls = "badge" } = {}) {
  return h("span", {
    class: [cls, "bot", "bot-account"],
    title: owner ? t("bot.badge.owner", { owner }) : t("bot.badge.title"),
  }, owner ? t("bot.badge.of", { owner }) : t("bot.badge"));
}
