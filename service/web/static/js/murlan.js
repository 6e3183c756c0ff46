// Murlan at the table: select cards for a combination, then Play or Pass.
import { cardButton, cardRow, cardText, runOrder } from './cards.js';
import { h } from './dom.js';
import { kindName, nameList } from './events.js';
import { t } from './i18n.js';

const selected = new Set();
/** The kinds of play, in the order the legal plays are listed. */
const KINDS = ['single', 'pair', 'triple', 'straight', 'quad'];

const shown = (card) => card && card !== '??';
const sameCards = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

function inOrder(hand) {
  return hand.filter((card) => selected.has(card));
}

/** What kind of combination these (legal) cards are. */
export function kindOf(cards) {
  if (cards.length === 1) return 'single';
  if (cards.length >= 5) return 'straight';
  return ['', '', 'pair', 'triple', 'quad'][cards.length];
}

export function seatFacts(v, s) {
  const tb = v.table;
  const facts = [];
  const out = (tb.out || []).indexOf(s);
  if (out >= 0) facts.push(t('murlan.seat.out', { place: out + 1 }));
  if (tb.dealer === s) facts.push(t('murlan.seat.dealt'));
  return facts;
}

export function statusText(v, c) {
  const tb = v.table;
  if (tb.phase === 'exchange') return t('murlan.status.exchange');
  if (tb.leading && tb.turn !== null && tb.turn === c.seat) {
    return tb.must_include
      ? t('murlan.status.youLeadMust', { card: cardText([tb.must_include]) })
      : t('murlan.status.youLead');
  }
  if (tb.leading && tb.turn !== null) {
    return tb.must_include
      ? t('murlan.status.leadsMust', { name: c.name(tb.turn), card: cardText([tb.must_include]) })
      : t('murlan.status.leads', { name: c.name(tb.turn) });
  }
  return '';
}

export function resultText(v, c) {
  const winners = (v.result.winners || []).map(c.name);
  const scores = nameList(
    v.seats.map((s) => t('murlan.nameScore', { name: c.name(s.seat), score: v.result.scores[s.seat] })),
  );
  return winners.length
    ? t('murlan.result.won', { names: nameList(winners), count: winners.length, scores })
    : t('murlan.result.scores', { scores });
}

export function board(v, c) {
  const tb = v.table;
  const facts = h(
    'div',
    { className: 'facts' },
    h('span', { className: 'fact' }, t('murlan.fact.hand', { hand: (tb.hand_number ?? 0) + 1 })),
    h('span', { className: 'fact' }, t('murlan.fact.target', { target: tb.target })),
    h(
      'span',
      { className: 'fact' },
      tb.options.straight_beats === 'any_higher'
        ? t('murlan.fact.straightsAny')
        : t('murlan.fact.straightsNext'),
    ),
  );
  let centre;
  if (tb.table) {
    centre = h(
      'div',
      { className: 'trick', id: 'murlan-table' },
      h(
        'div',
        { className: 'play' },
        cardRow(runOrder(tb.table.cards, tb.table.combination)),
        h(
          'span',
          { className: 'who' },
          t('murlan.table.toBeat', {
            kind: kindName(tb.table.combination),
            name: c.name(tb.table.seat),
            passes: tb.table.passes || 0,
          }),
        ),
      ),
    );
  } else if (tb.phase === 'playing') {
    centre = h(
      'p',
      { id: 'murlan-table' },
      tb.must_include
        ? t('murlan.table.clearMust', { name: c.name(tb.turn), card: cardText([tb.must_include]) })
        : t('murlan.table.clear', { name: c.name(tb.turn) }),
    );
  } else {
    centre = h(
      'p',
      { id: 'murlan-table' },
      tb.phase === 'over' ? t('murlan.table.over') : t('murlan.table.exchange'),
    );
  }
  const out = (tb.out || []).length
    ? h(
        'p',
        {},
        t('murlan.out', {
          list: nameList(tb.out.map((s, i) => t('murlan.outOne', { place: i + 1, name: c.name(s) }))),
        }),
      )
    : null;
  const ex = tb.exchange;
  let exchange = null;
  if (ex) {
    const given = shown(ex.card_given) ? cardText([ex.card_given]) : null;
    const back = shown(ex.card_given_back) ? cardText([ex.card_given_back]) : null;
    exchange = h(
      'p',
      { className: 'hint' },
      ex.skipped
        ? t('murlan.exchange.skipped', { name: c.name(ex.last_finisher) })
        : t('murlan.exchange.done', {
            last: c.name(ex.last_finisher),
            first: c.name(ex.first_finisher),
            given: given || t('murlan.exchange.aCard'),
            back: back || t('murlan.exchange.aCard'),
          }),
    );
  }
  const scores = h(
    'table',
    { className: 'list', tabindex: '0', 'aria-label': t('murlan.scores') },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, t('murlan.col.player')),
        h('th', { scope: 'col' }, t('murlan.col.points')),
      ),
    ),
    h(
      'tbody',
      {},
      v.seats.map((s) =>
        h('tr', {}, h('td', {}, c.name(s.seat)), h('td', {}, String(tb.scores[s.seat]))),
      ),
    ),
  );
  return [facts, centre, out, exchange, h('h3', {}, t('murlan.scores')), scores];
}

/** What the player must see to decide, beside the hand on a phone: the play to beat. */
export function decide(v, c) {
  const tb = v.table;
  if (!tb.table) return null;
  return h(
    'div',
    { className: 'decide-line' },
    cardRow(runOrder(tb.table.cards, tb.table.combination), 'small'),
    h(
      'span',
      {},
      t('murlan.table.toBeat', {
        kind: kindName(tb.table.combination),
        name: c.name(tb.table.seat),
        passes: tb.table.passes || 0,
      }),
    ),
  );
}

/** The legal plays, grouped by kind, every one a button that selects its cards. */
function legalPlays(plays, c) {
  const groups = KINDS.map((kind) => [kind, plays.filter((p) => kindOf(p) === kind)]).filter(
    ([, list]) => list.length,
  );
  return h(
    'details',
    { className: 'legal-plays', id: 'legal-plays', open: true },
    h('summary', {}, t('murlan.legal.title', { count: plays.length })),
    groups.map(([kind, list]) =>
      h(
        'div',
        { className: 'moves legal-kind', dataset: { kind }, role: 'group', 'aria-label': t(`murlan.legal.kind.${kind}`, { count: list.length }) },
        h('span', { className: 'lbl' }, t(`murlan.legal.kind.${kind}`, { count: list.length })),
        list.map((p) =>
          h(
            'button',
            {
              type: 'button',
              className: 'suggest',
              dataset: { focus: `suggest-${p.join('-')}`, cards: p.join(' ') },
              title: t('murlan.legal.select'),
              onclick: () => {
                selected.clear();
                p.forEach((card) => selected.add(card));
                c.rerender();
              },
            },
            cardText(runOrder(p, kind)),
          ),
        ),
      ),
    ),
  );
}

export function you(v, c) {
  const hand = v.hand || [];
  for (const card of [...selected]) if (!hand.includes(card)) selected.delete(card);
  const legal = v.legal_moves || [];
  const giveBacks = legal.filter((m) => m.action === 'give_back').map((m) => m.card);
  const plays = legal.filter((m) => m.action === 'play').map((m) => m.cards);
  const canPass = legal.some((m) => m.action === 'pass');
  const giving = giveBacks.length > 0;
  const toggle = (card) => () => {
    if (selected.has(card)) selected.delete(card);
    else {
      if (giving) selected.clear();
      selected.add(card);
    }
    c.rerender();
  };
  const cards = hand.map((card) =>
    cardButton(card, {
      pressed: selected.has(card),
      disabled: giving && !giveBacks.includes(card),
      onclick: toggle(card),
    }),
  );
  const chosen = inOrder(hand);
  const actions = [];
  if (giving) {
    const ex = v.table.exchange;
    actions.push(
      h(
        'p',
        {},
        t('murlan.giveBack.hint', {
          name: ex ? c.name(ex.last_finisher) : t('murlan.giveBack.lastFinisher'),
          cards: cardText(giveBacks),
        }),
      ),
    );
    actions.push(
      h(
        'div',
        { className: 'moves' },
        h(
          'button',
          {
            type: 'button',
            className: 'primary',
            disabled: chosen.length !== 1,
            dataset: { focus: 'give-back', action: 'give_back' },
            onclick: async () => {
              if (await c.submit({ action: 'give_back', card: chosen[0] })) selected.clear();
            },
          },
          t('murlan.giveBack.button'),
        ),
      ),
    );
  } else if (plays.length || canPass) {
    let hint;
    // Play is pressed only for a selection this page calls legal (the server would refuse others).
    const ok = chosen.length > 0 && plays.some((p) => sameCards(p, chosen));
    if (!plays.length) hint = t('murlan.hint.onlyPass');
    else if (chosen.length) {
      hint = t(ok ? 'murlan.hint.legal' : 'murlan.hint.illegal', { cards: cardText(chosen) });
    } else hint = t('murlan.hint.select');
    actions.push(
      h(
        'p',
        {
          className: `hint${plays.length ? '' : ' only-pass'}`,
          id: 'selection-hint',
          'aria-live': 'polite',
        },
        hint,
      ),
    );
    actions.push(
      h(
        'div',
        { className: 'moves' },
        h(
          'button',
          {
            type: 'button',
            className: plays.length ? 'primary' : '',
            disabled: !ok,
            dataset: { focus: 'play', action: 'play' },
            onclick: async () => {
              if (await c.submit({ action: 'play', cards: chosen })) selected.clear();
            },
          },
          t('murlan.play'),
        ),
        canPass
          ? h(
              'button',
              {
                type: 'button',
                className: plays.length ? '' : 'primary',
                dataset: { focus: 'pass', action: 'pass' },
                onclick: async () => {
                  if (await c.submit({ action: 'pass' })) selected.clear();
                },
              },
              t('murlan.pass'),
            )
          : null,
        plays.length
          ? h(
              'button',
              {
                type: 'button',
                disabled: chosen.length === 0,
                dataset: { focus: 'clear' },
                onclick: () => {
                  selected.clear();
                  c.rerender();
                },
              },
              t('murlan.clear'),
            )
          : null,
      ),
    );
    if (plays.length) actions.push(legalPlays(plays, c));
  } else {
    actions.push(
      h('p', { className: 'hint' }, v.status === 'ended' ? t('murlan.hint.over') : t('murlan.hint.wait')),
    );
  }
  return [cards, actions];
}

export function onKey(event, v, c) {
  if (event.key === 'Escape' && selected.size) {
    selected.clear();
    c.rerender();
    return true;
  }
  return false;
}
