// The player's language: message catalogs in ICU MessageFormat, formatted by the bundled
// intl-messageformat (plural rules and numbers from the platform's Intl).
//
// Catalogs live at /web/static/i18n/<lang>/<area>.json, one flat object per area whose keys
// start with the area's name ("table.heading"). A page loads the areas it shows with
// `await loadCatalogs(['common', 'table'])` and then formats with `t(key, params)`.
// Nothing is ever built by joining translated fragments: a sentence is one message with
// placeholders, and plurals are written inside the message ({count, plural, one {…} other {…}}).
import { IntlMessageFormat } from '../vendor/intl-messageformat.js';

/** The languages a player can choose, by the name their speakers use. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'ru', name: 'Русский' },
  { code: 'hu', name: 'Magyar' },
  { code: 'bg', name: 'Български' },
  { code: 'sq', name: 'Shqip' },
  { code: 'ne', name: 'नेपाली' },
];
/** Long, accented English for layout tests (choose it with ?lang=pseudo). */
export const PSEUDO = 'pseudo';
const STORE_KEY = 'cardroom.lang';
const CODES = new Set(LANGUAGES.map((l) => l.code));

let current = 'en';
const catalogs = { en: {}, [current]: {} };
const loaded = new Set();
const compiled = new Map();

/** The language to use: ?lang= in the address, else the one chosen before, else the first of
 * the browser's preferred languages that cardroom speaks, else English. */
export function pickLanguage(
  search = window.location.search,
  stored = safeGet(STORE_KEY),
  preferred = navigator.languages || [navigator.language],
) {
  const asked = new URLSearchParams(search).get('lang');
  if (asked && (CODES.has(asked) || asked === PSEUDO)) return asked;
  if (stored && (CODES.has(stored) || stored === PSEUDO)) return stored;
  for (const tag of preferred || []) {
    const base = String(tag || '')
      .toLowerCase()
      .split('-')[0];
    if (CODES.has(base)) return base;
  }
  return 'en';
}

function safeGet(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** The language in use ('en', 'ru', …, or 'pseudo'). */
export function language() {
  return current;
}

/** The BCP 47 tag for <html lang>. */
export function locale() {
  return current === PSEUDO ? 'en' : current;
}

/** The tag for Intl's formats: Nepali pages write numbers in the same (Latin) digits as the
 * numbers that reach them already written, so a sentence never mixes two scripts. */
export function formatLocale() {
  return current === 'ne' ? 'ne-u-nu-latn' : locale();
}

/** Choose a language and remember it; the page reloads to show it. */
export function chooseLanguage(code) {
  try {
    window.localStorage.setItem(STORE_KEY, code);
  } catch {
    // Private windows may refuse storage: the choice then lasts for this page only.
  }
  // The same choice for the pages rendered on the server (the rules), for a year.
  document.cookie = `${STORE_KEY}=${encodeURIComponent(code)}; path=/; max-age=31536000; SameSite=Lax`;
  const url = new URL(window.location.href);
  if (url.searchParams.has('lang')) url.searchParams.set('lang', code);
  window.location.replace(url.toString());
}

async function fetchArea(lang, area) {
  const response = await fetch(`/web/static/i18n/${lang}/${area}.json`, {
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) return {};
  return response.json();
}

/** Load the catalogs of these areas for the chosen language (and English beneath them). */
export async function loadCatalogs(areas, lang = pickLanguage()) {
  current = lang;
  catalogs[lang] = catalogs[lang] || {};
  const source = lang === PSEUDO ? 'en' : lang;
  const wanted = areas.filter((a) => !loaded.has(`${lang}/${a}`));
  const results = await Promise.all(
    wanted.flatMap((area) => [
      fetchArea('en', area),
      source === 'en' ? Promise.resolve(null) : fetchArea(source, area),
    ]),
  );
  wanted.forEach((area, i) => {
    const en = results[2 * i];
    const own = results[2 * i + 1];
    Object.assign(catalogs.en, en);
    if (lang === PSEUDO) {
      for (const [key, message] of Object.entries(en)) catalogs[lang][key] = pseudo(message);
    } else if (own) Object.assign(catalogs[lang], own);
    loaded.add(`${lang}/${area}`);
  });
  document.documentElement.lang = locale();
  return current;
}

/** The message `key` in the player's language, with `params` put in its placeholders. */
export function t(key, params = {}) {
  const message = catalogs[current]?.[key] ?? catalogs.en[key];
  if (message === undefined) return key;
  const id = `${current}\u0000${key}`;
  let format = compiled.get(id);
  if (!format) {
    try {
      format = new IntlMessageFormat(message, formatLocale());
    } catch {
      format = new IntlMessageFormat(catalogs.en[key] ?? key, 'en');
    }
    compiled.set(id, format);
  }
  return String(format.format(params));
}

/** Whether the catalogs hold `key` (for codes that may be new to this page). */
export function has(key) {
  return catalogs[current]?.[key] !== undefined || catalogs.en[key] !== undefined;
}

/** A number as the player writes it. */
export function number(value) {
  return new Intl.NumberFormat(formatLocale()).format(value);
}

/** Items joined as the player's language joins a list: `and` ("Ana, Bo and Cy") or `unit`
 * ("Ana 3, Bo 0"). Intl's own patterns where the browser has the language's data (some
 * builds carry only the larger languages); otherwise the catalog's `common.listAnd`, so a
 * Nepali or Albanian sentence never shows an English "and". */
export function list(items, kind = 'and') {
  const words = (items || []).map(String);
  const tag = locale();
  if (Intl.ListFormat && Intl.ListFormat.supportedLocalesOf([tag]).length) {
    const options = kind === 'unit' ? { style: 'short', type: 'unit' } : { type: 'conjunction' };
    return new Intl.ListFormat(tag, options).format(words);
  }
  if (kind === 'unit' || words.length < 2) return words.join(', ');
  return t('common.listAnd', { rest: words.slice(0, -1).join(', '), last: words[words.length - 1] });
}

/** Put the messages into the page's static text: `data-i18n="key"` sets the text, and
 * `data-i18n-attr="placeholder=key;aria-label=key"` sets attributes. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of node.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split('=').map((s) => s.trim());
      if (attr && key) node.setAttribute(attr, t(key));
    }
  }
  const title = document.querySelector('title[data-i18n]');
  if (title) document.title = title.textContent;
  // Every page offers the choice of language in its header.
  const header = root.querySelector?.('header.top');
  if (header && !header.querySelector('.lang-picker')) header.append(languagePicker());
}

/** A <select> to change the language, showing each language in its own name. */
export function languagePicker() {
  const select = document.createElement('select');
  select.className = 'lang-picker';
  select.setAttribute('aria-label', t('common.language'));
  for (const { code, name } of LANGUAGES) {
    const option = document.createElement('option');
    option.value = code;
    option.textContent = name;
    option.lang = code;
    if (code === current) option.selected = true;
    select.append(option);
  }
  if (current === PSEUDO) {
    const option = document.createElement('option');
    option.value = PSEUDO;
    option.textContent = 'Ƥşḗḗŭŭḓǿǿ';
    option.selected = true;
    select.append(option);
  }
  select.addEventListener('change', () => chooseLanguage(select.value));
  return select;
}

// -- the pseudo-locale: every letter accented, every message a third longer, bracketed ------
const ACCENTED = {
  a: 'ȧ',
  b: 'ƀ',
  c: 'ƈ',
  d: 'ḓ',
  e: 'ḗ',
  f: 'ƒ',
  g: 'ɠ',
  h: 'ħ',
  i: 'ī',
  j: 'ĵ',
  k: 'ķ',
  l: 'ŀ',
  m: 'ḿ',
  n: 'ƞ',
  o: 'ǿ',
  p: 'ƥ',
  r: 'ř',
  s: 'ş',
  t: 'ŧ',
  u: 'ŭ',
  v: 'ṽ',
  w: 'ẇ',
  y: 'ẏ',
  z: 'ẑ',
  A: 'Ȧ',
  B: 'Ɓ',
  C: 'Ƈ',
  D: 'Ḓ',
  E: 'Ḗ',
  F: 'Ƒ',
  G: 'Ɠ',
  H: 'Ħ',
  I: 'Ī',
  K: 'Ķ',
  L: 'Ŀ',
  M: 'Ḿ',
  N: 'Ƞ',
  O: 'Ǿ',
  P: 'Ƥ',
  R: 'Ř',
  S: 'Ş',
  T: 'Ŧ',
  U: 'Ŭ',
  W: 'Ẇ',
  Y: 'Ẏ',
  Z: 'Ẑ',
};

/** Accent the literal text of an ICU message, leaving placeholders, plural selectors and
 * `#` alone, and pad it by about a third so that layouts meet long languages early. */
export function pseudo(message) {
  let out = '';
  // What each open brace began: 'arg' (a placeholder's head: name, type, plural keys) or
  // 'text' (a plural or select branch, whose words are translated text again).
  const stack = ['text'];
  let letters = 0;
  for (const ch of message) {
    const top = stack[stack.length - 1];
    if (ch === '{') stack.push(top === 'text' ? 'arg' : 'text');
    else if (ch === '}') stack.pop();
    if (ch === '{' || ch === '}' || top === 'arg' || ch === '#') {
      out += ch;
      continue;
    }
    if (/[A-Za-z]/.test(ch)) letters += 1;
    out += ACCENTED[ch] ?? ch;
  }
  const pad = '·'.repeat(Math.ceil(letters / 3));
  return stack.length === 1 ? `⟦${out}${pad ? ` ${pad}` : ''}⟧` : message;
}
