// The table's sounds, synthesised with the Web Audio API (no files to download).
// Browsers let a page make sound only after the player has interacted with it, so
// nothing plays (and nothing is recorded) before the first pointer or key event; the
// AudioContext is created then. This module may arrive after that event (app.js loads
// it once the first page is drawn): app.js's own record of an interaction
// (window.__cirullaInteracted) counts too, and the context is made at the first sound.
// The settings (on/off, volume 0-100) are the player's options `sound` and `volume`,
// mirrored in localStorage for guests and offline.
// Every sound the client decides to play is pushed to window.__cirullaSounds (tests).

const STORAGE_KEY = "cirulla.sound";
const DEFAULTS = { on: true, volume: 70 };

export const SOUND_NAMES = ["play", "capture", "scopa", "accuso", "trick", "coins", "turn", "tick", "win", "lose", "end"];

let settings = readStored();
let interacted = window.__cirullaInteracted === true;
let ctx = null;
let master = null;

window.__cirullaSounds = window.__cirullaSounds || [];

function readStored() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    return saved ? normalise(saved) : { ...DEFAULTS };
  } catch {
    return { ...DEFAULTS };
  }
}

function normalise({ on, volume }) {
  const v = Number.isInteger(volume) ? Math.min(100, Math.max(0, volume)) : DEFAULTS.volume;
  return { on: typeof on === "boolean" ? on : DEFAULTS.on, volume: v };
}

export function soundSettings() {
  return { ...settings };
}

// Change the settings now (and remember them in this browser); listeners of
// "soundchange" on window (an open options panel) follow.
export function setSoundSettings(changes) {
  settings = normalise({ ...settings, ...changes });
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // private mode: the settings last as long as the page
  }
  if (master) master.gain.value = gainOf(settings.volume);
  window.dispatchEvent(new CustomEvent("soundchange", { detail: soundSettings() }));
}

// The user's server-side options win over what this browser remembers.
export function adoptOptions(options) {
  if (!options) return;
  const changes = {};
  if (typeof options.sound === "boolean") changes.on = options.sound;
  if (Number.isInteger(options.volume)) changes.volume = options.volume;
  if (Object.keys(changes).length) setSoundSettings(changes);
}

export function soundOn() {
  return interacted && settings.on && settings.volume > 0;
}

// The ear hears loudness roughly logarithmically: a squared slider feels even.
function gainOf(volume) {
  return (volume / 100) ** 2 * 0.8;
}

function unlock(e) {
  if (!e.isTrusted) return;
  interacted = true;
  startAudio();
}

function startAudio() {
  try {
    if (!ctx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return;
      ctx = new Ctx();
      master = ctx.createGain();
      master.gain.value = gainOf(settings.volume);
      master.connect(ctx.destination);
    }
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
  } catch {
    ctx = null; // no audio on this device: the sounds are only recorded
  }
}

for (const type of ["pointerdown", "keydown", "touchstart"]) {
  window.addEventListener(type, unlock, { capture: true, passive: true });
}

// ---- synthesis ------------------------------------------------------------------------

function tone(t0, freq, dur, { type = "sine", gain = 0.5, to = null } = {}) {
  const osc = ctx.createOscillator();
  const env = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  env.gain.setValueAtTime(0.0001, t0);
  env.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  env.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(env).connect(master);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

let noiseBuffer = null;
// A card on the felt: a short burst of filtered noise.
function swish(t0, dur, freq, gain = 0.6) {
  if (!noiseBuffer) {
    noiseBuffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * 0.3), ctx.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    for (let i = 0; i < data.length; i += 1) data[i] = Math.random() * 2 - 1;
  }
  const src = ctx.createBufferSource();
  src.buffer = noiseBuffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  filter.Q.value = 0.9;
  const env = ctx.createGain();
  env.gain.setValueAtTime(gain, t0);
  env.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  src.connect(filter).connect(env).connect(master);
  src.start(t0);
  src.stop(t0 + dur + 0.02);
}

const NOTE = (n) => 440 * 2 ** ((n - 69) / 12); // MIDI note number -> Hz

const VOICES = {
  play: (t0) => {
    swish(t0, 0.09, 2500);
    tone(t0, 140, 0.08, { gain: 0.35, to: 90 });
  },
  capture: (t0) => {
    swish(t0, 0.08, 2500);
    swish(t0 + 0.11, 0.18, 1400, 0.5);
    tone(t0 + 0.11, 180, 0.1, { gain: 0.25, to: 110 });
  },
  scopa: (t0) => {
    swish(t0, 0.08, 2500);
    [72, 76, 79, 84].forEach((n, i) => tone(t0 + 0.08 + i * 0.09, NOTE(n), 0.35, { type: "triangle", gain: 0.35 }));
  },
  // Cirulo (cirulo-sound.js): a trick gathered, and one that holds coins (a clink)
  trick: (t0) => {
    swish(t0, 0.16, 1600, 0.5);
    tone(t0 + 0.02, 160, 0.1, { gain: 0.25, to: 100 });
  },
  coins: (t0) => {
    swish(t0, 0.12, 1600, 0.4);
    [2093, 2637, 2349].forEach((f, i) => tone(t0 + 0.06 + i * 0.07, f, 0.18, { type: "triangle", gain: 0.18 }));
  },
  accuso: (t0) => {
    tone(t0, NOTE(79), 0.3, { type: "triangle", gain: 0.35 });
    tone(t0 + 0.14, NOTE(86), 0.45, { type: "triangle", gain: 0.3 });
  },
  turn: (t0) => {
    tone(t0, NOTE(81), 0.5, { gain: 0.3 });
    tone(t0, NOTE(93), 0.25, { gain: 0.08 });
  },
  tick: (t0) => tone(t0, 1300, 0.04, { type: "square", gain: 0.12 }),
  win: (t0) => [72, 76, 79, 84, 88].forEach((n, i) => tone(t0 + i * 0.12, NOTE(n), 0.5, { type: "triangle", gain: 0.35 })),
  lose: (t0) => [67, 63, 60, 55].forEach((n, i) => tone(t0 + i * 0.18, NOTE(n), 0.55, { type: "sine", gain: 0.35 })),
  end: (t0) => {
    tone(t0, NOTE(67), 0.4, { type: "triangle", gain: 0.3 });
    tone(t0 + 0.2, NOTE(72), 0.6, { type: "triangle", gain: 0.3 });
  },
};

// Play `name` after `delay` seconds; nothing (and nothing recorded) when muted or
// before the player has interacted with the page.
export function playSound(name, delay = 0) {
  if (!soundOn() || !VOICES[name]) return false;
  window.__cirullaSounds.push(name);
  if (!ctx) startAudio(); // an interaction before this module came
  if (!ctx || ctx.state !== "running") return true; // (scheduled while suspended, all would play at once)
  try {
    VOICES[name](ctx.currentTime + 0.01 + delay);
  } catch {
    // a voice failing must never break the table
  }
  return true;
}
