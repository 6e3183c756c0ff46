// The table's sounds, made in the browser with WebAudio (no sound files): a short chime
// when the turn comes to the player, a soft click for a card on the table, a low note for a
// pass or fold, and a rising three-note phrase when a hand, deal or match is settled. The
// page plays them only once the player has turned sounds on (effects.js).

/** Each sound: notes of [frequency in Hz, start in s, length in s, waveform]. */
export const SOUNDS = {
  turn: [
    [660, 0, 0.12, 'sine'],
    [880, 0.12, 0.2, 'sine'],
  ],
  card: [[1400, 0, 0.05, 'triangle']],
  pass: [[220, 0, 0.12, 'sine']],
  end: [
    [523, 0, 0.12, 'triangle'],
    [659, 0.12, 0.12, 'triangle'],
    [784, 0.24, 0.3, 'triangle'],
  ],
};
const VOLUME = 0.15;

let context = null;

function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === 'suspended') context.resume();
  return context;
}

/** Make the audio context now (inside the click that turned sounds on: browsers let a page
 * start sound only after the player touched it). */
export function unlock() {
  return audio() !== null;
}

/** Play one of {@link SOUNDS}; false when this browser has no WebAudio. */
export function playSound(name) {
  const ctx = audio();
  const notes = SOUNDS[name];
  if (!ctx || !notes) return false;
  for (const [frequency, start, length, type] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.value = frequency;
    const at = ctx.currentTime + start;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(VOLUME, at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + length + 0.02);
  }
  return true;
}
