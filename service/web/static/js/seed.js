// The player's part of every shuffle, drawn in this browser: 16 bytes from
// crypto.getRandomValues as 32 hex digits. The server never chooses it, and it
// is shown before the deal so the player can check it in the replay later.

export function browserSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Fill an empty seed field with a seed drawn here (a seed typed by the player stays). */
export function offerSeed(input) {
  if (input && !input.value.trim()) input.value = browserSeed();
  return input;
}

/** The seed to send: the field's, or one drawn here when the player emptied it. */
export function seedToSend(input) {
  const typed = input ? input.value.trim() : '';
  return typed || browserSeed();
}
