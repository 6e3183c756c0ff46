// Copying a link: the Clipboard API where the page may use it, else the text selected in
// its (read-only) field and copied the old way, else left selected for the player to copy.

/** Copy `text`; `field` (an <input> holding it) is selected when nothing else works.
 * True when the text is on the clipboard. */
export async function copyText(text, field) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // refused (no permission, not focused): try the old way below
  }
  if (!field) return false;
  field.focus();
  field.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}
