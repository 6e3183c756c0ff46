// What the in-browser verifier found, drawn: the verdict, then each check (the commitment,
// every deal) and each client seed with its origin. Words come from the catalogs through
// `t`, given by the page. No imports: the offline verifier page carries this file inline.

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'className') node.className = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const FAILURES = new Set([
  'commitment',
  'derived-seed',
  'hand',
  'deal-number',
  'deal-event',
  'deal-count',
  'seat-event',
  'commitment-event',
]);

/** The sentence of a result's code: a verdict, a mismatch or a document it could not read. */
export function verdictText(result, t) {
  if (result.ok) return t('verifier.verified', result.params);
  if (FAILURES.has(result.code)) return t(`verifier.failed.${result.code}`, result.params);
  return t(`verifier.problem.${result.code}`, result.params);
}

function short(hex) {
  return `${hex.slice(0, 12)}…${hex.slice(-6)}`;
}

function dealLine(d, seeds, t) {
  if (d.ok) return el('li', { className: 'ok' }, t('verifier.check.dealOk', { deal: d.deal + 1, hands: d.seats }));
  if (!d.wrong.length) return el('li', { className: 'bad' }, t('verifier.check.dealNumber', { deal: d.deal + 1 }));
  const names = d.wrong.map((s) => t('verifier.seatName', { name: seeds[s].name, seat: s + 1 }));
  return el(
    'li',
    { className: 'bad', 'data-deal': d.deal, 'data-seats': d.wrong.join(' ') },
    t('verifier.check.dealBad', { deal: d.deal + 1, count: names.length, names: names.join(', ') }),
  );
}

/** The whole report of one verification, as elements. */
export function verificationView(result, t) {
  const verdict = el(
    'p',
    {
      className: `check-verdict ${result.ok ? 'ok' : result.code === 'not-revealed' ? 'wait' : 'bad'}`,
      'data-code': result.code,
      'data-ok': String(result.ok),
    },
    verdictText(result, t),
  );
  if (!result.commitment) return [verdict];
  const c = result.commitment;
  const checks = el(
    'ul',
    { className: 'checks' },
    el(
      'li',
      { className: c.ok ? 'ok' : 'bad', 'data-check': 'commitment' },
      t(c.ok ? 'verifier.check.commitmentOk' : 'verifier.check.commitmentBad', {
        computed: short(c.computed),
        published: short(c.published),
      }),
    ),
    result.deals.map((d) => dealLine(d, result.seeds, t)),
  );
  const seeds = el(
    'details',
    { className: 'seeds' },
    el('summary', {}, t('verifier.seedsTitle', { count: result.seeds.length })),
    el(
      'dl',
      { className: 'kv' },
      result.seeds.map((s) => [
        el('dt', {}, t('verifier.seatName', { name: s.name, seat: s.seat + 1 })),
        el(
          'dd',
          {},
          el('span', { className: 'mono' }, s.seed),
          ' ',
          el('span', { className: 'hint' }, originText(s, t)),
        ),
      ]),
    ),
  );
  return [verdict, checks, seeds];
}

/** Who chose a seat's seed, and for a derived one whether this browser re-derived it. */
function originText(s, t) {
  if (s.origin === 'player') return t('verifier.originPlayer');
  if (s.origin === 'derived') return t(s.derivedOk ? 'verifier.originDerived' : 'verifier.originDerivedWrong', { seat: s.seat });
  if (s.origin === 'unrecorded') return t('verifier.originUnrecorded');
  return t('verifier.originUnknown');
}
