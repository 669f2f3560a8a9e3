// The mark of a bot account: botBadge now lives in pages/dom.js (beside playerLink, so
// that a page showing names needs no module more); this module keeps its old address.
export { botBadge } from "./pages/dom.js";
