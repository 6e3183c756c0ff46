// The offline verifier page: a replay document dropped, chosen or pasted is checked by
// verifyText (verifier.js) and drawn by verificationView (verifier-view.js), both carried
// inline above this script with the catalogs (CATALOGS) and IntlMessageFormat. Nothing is
// fetched: the page's own Content-Security-Policy forbids every request.
const LANGS = [
  ['en', 'English'],
  ['ru', 'Русский'],
  ['hu', 'Magyar'],
  ['bg', 'Български'],
  ['sq', 'Shqip'],
  ['ne', 'नेपाली'],
];
const STORE_KEY = 'cardroom.lang';

function pick() {
  const asked = new URLSearchParams(window.location.search).get('lang');
  let stored = null;
  try {
    stored = window.localStorage.getItem(STORE_KEY);
  } catch {
    stored = null;
  }
  for (const code of [asked, stored, ...(navigator.languages || [])]) {
    const base = String(code || '').toLowerCase().split('-')[0];
    if (CATALOGS[base]) return base;
  }
  return 'en';
}

let lang = pick();
const formats = new Map();

function t(key, params = {}) {
  const message = CATALOGS[lang][key] ?? CATALOGS.en[key];
  if (message === undefined) return key;
  let format = formats.get(`${lang}:${key}`);
  if (!format) {
    try {
      format = new IntlMessageFormat(message, lang === 'ne' ? 'ne-u-nu-latn' : lang);
    } catch {
      format = new IntlMessageFormat(CATALOGS.en[key] ?? key, 'en');
    }
    formats.set(`${lang}:${key}`, format);
  }
  return String(format.format(params));
}

function translate() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  document.title = t('verifier.pageTitle');
  const select = document.createElement('select');
  select.className = 'lang-picker';
  select.setAttribute('aria-label', t('common.language'));
  for (const [code, name] of LANGS) {
    const option = new Option(name, code, false, code === lang);
    option.lang = code;
    select.append(option);
  }
  select.addEventListener('change', () => {
    lang = select.value;
    try {
      window.localStorage.setItem(STORE_KEY, lang);
    } catch {
      // a file page may have no storage: the choice lasts while it is open
    }
    translate();
    if (last) show(last.result, last.label);
  });
  document.querySelector('header.top nav').replaceChildren(select);
}

let last = null;
function show(result, label) {
  last = { result, label };
  const panel = document.getElementById('result-panel');
  panel.hidden = false;
  const source = document.getElementById('source');
  const game = result.game && CATALOGS.en[`common.game.${result.game}`] ? t(`common.game.${result.game}`) : result.game;
  source.textContent = [label, result.gameId ? t('verifier.gameLine', { game, id: result.gameId }) : '']
    .filter(Boolean)
    .join(' · ');
  document.getElementById('result').replaceChildren(...verificationView(result, t));
}

async function check(text, label) {
  const box = document.getElementById('result');
  document.getElementById('result-panel').hidden = false;
  box.replaceChildren(Object.assign(document.createElement('p'), { className: 'check-verdict wait', textContent: t('verifier.checking') }));
  const result = await verifyText(text, {
    onProgress: (done, total) => {
      box.firstChild.textContent = t('verifier.progress', { done, total });
    },
  });
  show(result, label);
}

async function readFile(file) {
  if (!file) return;
  if (file.size > LIMITS.bytes) {
    show({ ok: false, code: 'too-large', params: { limit: LIMITS.bytes }, deals: [] }, t('verifier.fileName', { name: file.name }));
    return;
  }
  await check(await file.text(), t('verifier.fileName', { name: file.name }));
}

translate();
const drop = document.getElementById('drop');
document.getElementById('file').addEventListener('change', (event) => readFile(event.target.files[0]));
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  readFile(event.dataTransfer.files[0]);
});
document.getElementById('check').addEventListener('click', () => check(document.getElementById('text').value, ''));
document.body.dataset.ready = '1';
