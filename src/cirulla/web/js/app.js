// The client's entry point: session, the one WebSocket, the top bar and the router.
// Pages are modules loaded when first needed: pages/*.js for the pages, table.js and
// replay.js for a table in play and a finished partita. Each page is mounted with
// mount(root, ctx) and answers {unmount()}.
import { LANGUAGES, language, setLanguage, t, whenComplete } from "./i18n.js";
import { Connection } from "./socket.js";
import { h, fill, link, whenStyled } from "./pages/dom.js";
import { walletBadge, walletOf } from "./pages/chips.js";

// What the first page can do without comes after it (on a phone each module before it is
// a request on its way): HTTP calls (the HTML carried GET /api/me), toasts, sound and
// the tournaments' notices, these two once the first page is drawn and the browser idle
// (`firstPage`), with the whole catalog and stylesheets (`complete`: the table's page
// carries only the part it needs of each).
async function api(...args) {
  return (await import("./api.js")).api(...args);
}

function notify(text, kind = "info") {
  import("./pages/toast.js").then((m) => m.notify(text, kind), (err) => console.error(err));
}

function complete() {
  return Promise.all([whenComplete(), whenStyled()]);
}

function notifyError(err) {
  Promise.all([import("./pages/errors.js"), whenComplete()]).then(
    ([m]) => notify(m.readableError(err), "error"),
    (e) => console.error(e),
  );
}

let firstDrawn = null;
let htmlPath = location.pathname; // the page the HTML was made for, until it is drawn
const firstPage = new Promise((resolve) => {
  firstDrawn = resolve;
}).then(complete);

// The server's default language option (gateway/accounts.py OPTION_DEFAULTS): an account
// that still has it never chose, so the browser's preference is kept.
const SERVER_DEFAULT_LANGUAGE = "it";

const ROUTES = [
  { pattern: /^\/$/, page: "welcome", auth: false },
  { pattern: /^\/login$/, page: "login", auth: false },
  { pattern: /^\/register$/, page: "register", auth: false },
  { pattern: /^\/lobby$/, page: "lobby", auth: true },
  { pattern: /^\/profile$/, page: "profile", auth: true },
  { pattern: /^\/history$/, page: "history", auth: true },
  { pattern: /^\/tournaments$/, page: "tournaments", auth: true },
  { pattern: /^\/tournament\/([^/]+)$/, page: "tournament", auth: true },
  { pattern: /^\/wallet$/, page: "wallet", auth: true },
  { pattern: /^\/leaderboards$/, page: "leaderboards", auth: true },
  { pattern: /^\/score$/, page: "score", auth: false }, // the score keeper: a tool, no login
  { pattern: /^\/player\/([^/]+)$/, page: "player", auth: true },
  { pattern: /^\/table\/([^/]+)$/, page: "table", auth: true },
  { pattern: /^\/replay\/([^/]+)$/, page: "replay", auth: true },
];

// Loading a page module, and the name of its mount function.
const PAGES = {
  welcome: [() => import("./pages/welcome.js"), "mountWelcome"],
  login: [() => import("./pages/auth.js"), "mountLogin"],
  register: [() => import("./pages/auth.js"), "mountRegister"],
  lobby: [() => import("./pages/lobby.js"), "mountLobby"],
  profile: [() => import("./pages/profile.js"), "mountProfile"],
  history: [() => import("./pages/history.js"), "mountHistory"],
  tournaments: [() => import("./pages/tournaments.js"), "mountTournaments"],
  tournament: [() => import("./pages/tournament.js"), "mountTournament"],
  wallet: [() => import("./pages/wallet.js"), "mountWallet"],
  leaderboards: [() => import("./pages/leaderboards.js"), "mountLeaderboards"],
  score: [() => import("./pages/score-keeper.js"), "mountScoreKeeper"],
  player: [() => import("./pages/player.js"), "mountPlayer"],
  table: [() => import("./table.js"), "mountTable"],
  replay: [() => import("./replay.js"), "mountReplay"],
};

// Pages that keep their own state through a language change (they listen to the
// window's "languagechange" event themselves): never re-mounted for it.
const KEEP_ON_LANGUAGE = new Set(["table", "replay"]);

const state = {
  user: null,
  conn: null,
  mounted: null, // {unmount()}
  page: null,
  renderToken: 0,
  wallet: null, // {chips, escrow, known} for the top bar
  fresh: false, // the user and balance came with the page: the first render asks nothing
  early: null, // {id, done}: boot.js's join of this page's table (adoptEarlyJoin)
};

const shell = {
  root: null,
  bar: null,
  main: null,
};

// ---- session --------------------------------------------------------------------------

// What GET /api/me answered when the server made this page (gateway/web.py puts it in
// the HTML): read once, at start; undefined when the HTML has none.
function bootstrapped() {
  const block = document.getElementById("cirulla-bootstrap");
  if (!block) return undefined;
  try {
    return JSON.parse(block.textContent).me;
  } catch {
    return undefined;
  }
}

async function loadSession() {
  try {
    const data = await api("GET", "/api/me");
    return data.user;
  } catch (err) {
    if (err.status === 401) return null;
    throw err;
  }
}

// Log a user in on this page (after guest, login, register, claim or at start).
function setUser(user, { adoptLanguage = true } = {}) {
  const before = state.user;
  state.user = user;
  // the balance comes with GET /api/me; other answers (login, claim, options) lack it
  const withChips = user && user.chips !== undefined;
  state.wallet = withChips ? walletOf(user) : user && before?.name === user.name ? state.wallet : null;
  if (user && !withChips) refreshWallet();
  if (user && adoptLanguage) {
    const chosen = user.options && user.options.language;
    if (chosen && chosen !== SERVER_DEFAULT_LANGUAGE && chosen !== language()) setLanguage(chosen);
  }
  if (user && !state.conn) openConnection();
  if (!user && state.conn) {
    state.conn.close();
    state.conn = null;
  }
  if (before?.name !== user?.name || before?.guest !== user?.guest || !before !== !user) renderBar();
}

function openConnection() {
  const early = window.cirullaEarlySocket?.table ?? null; // before the Connection takes it
  const conn = new Connection();
  state.conn = conn;
  if (early) state.early = { id: early.id, done: adoptEarlyJoin(conn, early) };
  conn.addEventListener("status", (e) => {
    updateStatus();
    if (e.detail.status === "offline") checkSessionSoon();
  });
  conn.addEventListener("servererror", (e) => notifyError(e.detail));
  conn.addEventListener("table", (e) => watchChips(conn, e.detail));
  watchTournamentsSoon(conn);
  updateStatus();
}

// The join boot.js sent as the socket opened, for this page's table: once it is
// answered, the table is watched with the view it brought (conn.view has it), and the
// table page, which waits for this, joins only for what came since: the view is here a
// round trip sooner, and comes once. The frames replayed from boot.js (the welcome among
// them) go first. Without that view (an error, no socket) the page joins as usual.
function adoptEarlyJoin(conn, early) {
  return new Promise((resolve) => {
    let done = false;
    const adopt = () => {
      if (done) return;
      done = true;
      const ok = early.answer && early.answer.type === "ack" && early.frames.some((f) => f.type === "sync");
      if (ok && state.conn === conn && !conn.tables.has(early.id)) {
        conn.tables.set(early.id, { version: null, view: null, invite: early.invite });
        for (const frame of early.frames) conn.onFrame(frame);
      }
      resolve();
    };
    if (early.answer) queueMicrotask(adopt); // after socket.js's replay of the early frames
    else early.onAnswer = adopt;
    setTimeout(adopt, 10000); // never answered: the page joins as usual
  });
}

// A tournament's round: a notice, and the player's table opens by itself. The module
// comes after the first page (one request less on the way to it); the frames that
// arrive before it are kept and handed to it.
function watchTournamentsSoon(conn) {
  const early = [];
  const keep = (e) => early.push(e);
  conn.addEventListener("tournament", keep);
  const replaying = {
    addEventListener(type, listener) {
      conn.addEventListener(type, listener);
      if (type === "tournament") for (const e of early) listener(e);
    },
    removeEventListener: (type, listener) => conn.removeEventListener(type, listener),
  };
  firstPage.then(() => import("./pages/tournament-notices.js")).then(
    ({ watchTournaments }) => {
      conn.removeEventListener("tournament", keep);
      if (state.conn !== conn) return; // logged out meanwhile
      watchTournaments(replaying, {
        navigate,
        where: () => ({ page: state.page, tableId: /^\/table\/([^/]+)$/.exec(location.pathname)?.[1] ?? null }),
        busyAt: (id) => {
          const v = conn.view(decodeURIComponent(id));
          return Boolean(v && v.status === "playing" && v.you !== null && v.you !== undefined);
        },
      });
    },
    (err) => console.error(err),
  );
}

// The socket is refused without a valid session: when it drops, ask whether the session
// ended (logged out in another tab, expired) and if so go back to the welcome page.
let sessionCheck = null;
function checkSessionSoon() {
  if (sessionCheck) return;
  sessionCheck = setTimeout(async () => {
    sessionCheck = null;
    if (!state.user) return;
    let user;
    try {
      user = await loadSession();
    } catch {
      return; // the network is down: the socket keeps retrying
    }
    if (!user && state.user) {
      setUser(null);
      const here = location.pathname + location.search;
      navigate(`/?next=${encodeURIComponent(here)}`, { replace: true });
    }
  }, 1500);
}

// ---- the wallet in the top bar ------------------------------------------------------------

// Ask the server for the balance again and redraw only the bar's badge.
async function refreshWallet() {
  if (!state.user) return;
  let data;
  try {
    data = await api("GET", "/api/me");
  } catch {
    return; // offline or logged out: the session check deals with it
  }
  if (!data || !data.user || !state.user || data.user.name !== state.user.name) return;
  state.user = { ...state.user, ...data.user };
  state.wallet = walletOf(data.user);
  const old = shell.bar && shell.bar.querySelector(".wallet-badge");
  if (old) old.replaceWith(walletBadge(state.wallet, state.page));
}

// A seat taken or left, a partita over: chips moved (escrow, release, settlement). The
// settlement is written just after the table ends, so the balance is asked again later too.
const tableMarks = new Map(); // table -> "status:seat" last seen
let walletTimers = [];
function watchChips(conn, frame) {
  const id = frame && frame.table;
  const view = id ? conn.view(id) : null;
  if (!view) return;
  const mark = `${view.status}:${view.you ?? ""}`;
  const before = tableMarks.get(id);
  tableMarks.set(id, mark);
  if (before === undefined || before === mark) return;
  for (const timer of walletTimers) clearTimeout(timer);
  const ended = view.status === "finished" || view.status === "closed";
  walletTimers = (ended ? [200, 1500, 4000] : [200]).map((ms) => setTimeout(refreshWallet, ms));
}

async function logout() {
  try {
    await api("POST", "/api/logout");
  } catch (err) {
    notifyError(err);
  }
  setUser(null);
  navigate("/", { replace: true });
}

// Switch language: at once on this page, and saved to the account when logged in.
// Resolves once the page is in `lang` (its catalog may still be on its way when the
// option is saved), so what the caller says next is said in it.
async function chooseLanguage(lang) {
  if (!LANGUAGES.includes(lang) || lang === language()) return;
  const switched = setLanguage(lang);
  if (state.user) {
    try {
      const data = await api("PUT", "/api/me/options", { language: lang });
      state.user = data.user;
    } catch (err) {
      notifyError(err);
    }
  }
  await switched;
}

// ---- router ---------------------------------------------------------------------------

function safeNext(value) {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") ? value : null;
}

export function navigate(path, { replace = false } = {}) {
  const target = new URL(path, location.origin);
  const url = target.pathname + target.search + target.hash;
  if (replace) history.replaceState({}, "", url);
  else if (url !== location.pathname + location.search + location.hash) history.pushState({}, "", url);
  render();
}

function match(pathname) {
  for (const route of ROUTES) {
    const m = route.pattern.exec(pathname);
    if (m) return { route, params: m.slice(1).map(decodeURIComponent) };
  }
  return null;
}

function unmountCurrent() {
  if (state.mounted) {
    try {
      state.mounted.unmount();
    } catch (err) {
      console.error(err);
    }
  }
  state.mounted = null;
  state.page = null;
}

async function render() {
  const token = ++state.renderToken;
  const url = new URL(location.href);
  const found = match(url.pathname);
  if (!found) {
    unmountCurrent();
    fill(shell.main, h("section", { class: "page narrow" },
      h("h1", {}, t("notfound.title")),
      h("p", {}, t("notfound.text")),
      link(state.user ? "/lobby" : "/", t("notfound.back"), { class: "button" })));
    renderBar();
    return;
  }
  const { route, params } = found;
  if (route.auth && !state.user) {
    navigate(`/?next=${encodeURIComponent(url.pathname + url.search)}`, { replace: true });
    return;
  }
  if (route.page === "welcome" && state.user) {
    navigate(safeNext(url.searchParams.get("next")) || "/lobby", { replace: true });
    return;
  }
  const [load, fn] = PAGES[route.page];
  let mod;
  try {
    // any page but the one the HTML was made for: with the whole catalog and stylesheets
    // (the HTML may have carried only the part that page needs)
    const first = url.pathname === htmlPath;
    htmlPath = null;
    [mod] = await Promise.all([load(), first ? null : complete()]);
  } catch (err) {
    console.error(err);
    if (token !== state.renderToken) return;
    unmountCurrent();
    fill(shell.main, h("section", { class: "page narrow" }, h("p", { class: "error", role: "alert" }, t("app.load_failed"))));
    return;
  }
  if (token !== state.renderToken) return;
  unmountCurrent();
  const root = h("div", { class: ["page-root", `page-${route.page}`] });
  fill(shell.main, root);
  state.page = route.page;
  renderBar();
  if (state.user && !state.fresh) refreshWallet();
  state.fresh = false;
  const ctx = pageContext(route.page, params, url);
  try {
    state.mounted = mod[fn](root, ctx) || null;
  } catch (err) {
    console.error(err);
    fill(root, h("p", { class: "error", role: "alert" }, t("app.load_failed")));
  }
  document.title = `${t(`title.${route.page}`)} · Cirulla`;
  shell.main.focus({ preventScroll: true });
}

function pageContext(page, params, url) {
  const user = state.user;
  const common = {
    user,
    conn: state.conn,
    navigate,
  };
  if (page === "table" || page === "replay") {
    // boot.js's join of this table, for the first page only (table.js waits for it)
    const early = page === "table" && state.early && state.early.id === params[0] ? state.early.done : null;
    state.early = null;
    return {
      ...common,
      early,
      tableId: params[0],
      invite: url.searchParams.get("invite"),
      options: { ...(user ? user.options : {}), language: language() },
      setUser, // the table's options save the user's options (table-options.js)
    };
  }
  return {
    ...common,
    params,
    query: url.searchParams,
    next: safeNext(url.searchParams.get("next")),
    setUser,
    refreshWallet,
    notify,
    logout,
  };
}

// ---- top bar --------------------------------------------------------------------------

function renderBar() {
  const user = state.user;
  const current = state.page;
  const nav = user
    ? h("nav", { class: "topnav", "aria-label": t("nav.label") },
        ["lobby", "tournaments", "leaderboards", "history", "profile", "score"].map((name) =>
          link(`/${name}`, t(`nav.${name}`), {
            "aria-current": current === name || (name === "tournaments" && current === "tournament") ? "page" : null,
          })))
    : h("nav", { class: "topnav", "aria-label": t("nav.label") },
        link("/login", t("nav.login"), { "aria-current": current === "login" ? "page" : null }),
        link("/register", t("nav.register"), { "aria-current": current === "register" ? "page" : null }),
        link("/score", t("nav.score"), { "aria-current": current === "score" ? "page" : null }));
  const langs = h("div", { class: "langswitch", role: "group", "aria-label": t("nav.language") },
    LANGUAGES.map((lang) =>
      h("button", {
        type: "button",
        class: "lang",
        lang,
        dataset: { lang },
        "aria-pressed": String(lang === language()),
        title: t(`language.${lang}`),
        onclick: () => chooseLanguage(lang),
      }, lang.toUpperCase())));
  const who = user
    ? h("span", { class: "who" },
        walletBadge(state.wallet, current),
        h("span", { class: "who-name", title: user.name }, user.name),
        user.guest ? h("span", { class: "badge" }, t("nav.guest")) : null,
        h("button", { type: "button", class: "link-button logout", onclick: logout }, t("nav.logout")))
    : null;
  const status = user
    ? h("span", { class: "conn-status", role: "status", "aria-live": "polite", dataset: { status: "connecting" } },
        h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: "conn-text" }))
    : null;
  fill(shell.bar,
    link(user ? "/lobby" : "/", "Cirulla", { class: "brand" }),
    nav,
    h("div", { class: "bar-right" }, status, langs, who));
  updateStatus();
}

function updateStatus() {
  const el = shell.bar && shell.bar.querySelector(".conn-status");
  if (!el || !state.conn) return;
  const status = state.conn.status;
  el.dataset.status = status;
  el.querySelector(".conn-text").textContent = t(`status.${status}`);
  el.title = t(`status.${status}`);
}

// ---- start ----------------------------------------------------------------------------

function onLinkClick(e) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target.closest("a[data-link]");
  if (!a || a.target === "_blank") return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  navigate(url.pathname + url.search + url.hash);
}

function onLanguageChange() {
  document.documentElement.lang = language();
  renderBar();
  if (state.page && !KEEP_ON_LANGUAGE.has(state.page)) render();
  else if (state.page) document.title = `${t(`title.${state.page}`)} · Cirulla`;
}

async function start() {
  // Sound once the first page is drawn; a click before it still counts, as this listener
  // (there from the start) keeps the record sound.js reads. Not the browser's own
  // navigator.userActivation: a test driver's script calls count there as activations.
  const interacted = (e) => {
    if (e.isTrusted) window.__cirullaInteracted = true;
  };
  for (const type of ["pointerdown", "keydown", "touchstart"]) {
    window.addEventListener(type, interacted, { capture: true, passive: true });
  }
  firstPage.then(() => import("./sound.js")).catch((err) => console.error(err));
  window.__cirullaSounds = window.__cirullaSounds || []; // sound.js's record, there from the start
  const app = document.getElementById("app");
  shell.bar = h("header", { class: "topbar" });
  shell.main = h("main", { id: "main", class: "main", tabindex: "-1" });
  // The shell goes into the document with the first page in it: one layout and one
  // paint for both, not a first one for the bar alone (a phone's CPU is slow); a first
  // page slow to come shows the bar meanwhile.
  const show = () => {
    if (shell.main.isConnected) return;
    fill(app, h("a", { class: "skip", href: "#main" }, t("app.skip")), shell.bar, shell.main);
    // focused once drawn (focus() now would lay the page out before its first frame),
    // unless the player has put the focus somewhere meanwhile
    const focus = () => {
      const a = document.activeElement;
      if (!a || a === document.body) shell.main.focus({ preventScroll: true });
    };
    requestAnimationFrame(() => setTimeout(focus));
  };
  const late = setTimeout(show, 1000);
  document.documentElement.lang = language();
  document.addEventListener("click", onLinkClick);
  window.addEventListener("popstate", () => render());
  window.addEventListener("languagechange", onLanguageChange);
  let user = null;
  const me = bootstrapped();
  if (me !== undefined) {
    user = me ? me.user : null;
    state.fresh = true; // the balance too: no need to ask again for the first page
  } else {
    try {
      user = await loadSession();
    } catch (err) {
      notifyError(err);
    }
  }
  if (user) setUser(user); // draws the bar
  else renderBar();
  await render();
  clearTimeout(late);
  show();
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
  idle(() => firstDrawn(), { timeout: 500 });
}

// For debugging and the browser tests: the live connection and the user.
window.cirulla = {
  get conn() {
    return state.conn;
  },
  get user() {
    return state.user;
  },
  navigate,
};

start();
