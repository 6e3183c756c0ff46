// Hazari Lite at the table: arrange four groups (starting from the suggested
// arrangement) by swapping cards, then say up.
import { cardButton, cardRow } from './cards.js';
import { h } from './dom.js';
import { nameList } from './events.js';
import { describeGroup, firstOutOfOrder, groupKey, orderRule } from './hazari-eval.js';
import { t } from './i18n.js';

let working = null; // {deal, groups}
let picked = null; // {g, i}

const ORDER_RULES = new Set(['groups_out_of_order', 'four_card_group_not_lowest']);

export function explain(problem) {
  return ORDER_RULES.has(problem.rule) ? orderRule() : null;
}

export function seatFacts(v, s) {
  const tb = v.table;
  const facts = [];
  if (tb.dealer === s) facts.push(t('hazari.seat.dealer'));
  if (tb.phase === 'arranging')
    facts.push(tb.said_up[s] ? t('hazari.seat.saidUp') : t('hazari.seat.arranging'));
  return facts;
}

export function statusText(v) {
  return v.table.phase === 'arranging' ? t('hazari.status.arranging') : '';
}

export function resultText(v, c) {
  const winners = (v.result.winners || []).map(c.name);
  const scores = nameList(
    v.seats.map((s) => t('hazari.nameScore', { name: c.name(s.seat), score: v.result.scores[s.seat] })),
  );
  return winners.length
    ? t('hazari.result.won', { names: nameList(winners), count: winners.length, scores })
    : t('hazari.result.scores', { scores });
}

function roundView(r, c) {
  return h(
    'div',
    { className: 'round', dataset: { round: String(r.round) } },
    h('h4', {}, t('hazari.round', { round: r.round, name: c.name(r.winner), count: r.points })),
    h(
      'div',
      { className: 'laid' },
      r.order.map((s) =>
        h(
          'div',
          { className: s === r.winner ? 'winner' : '' },
          h('div', { className: 'who' }, c.name(s)),
          cardRow(r.laid[s], 'small'),
          h('div', { className: 'hint' }, describeGroup(r.laid[s])),
        ),
      ),
    ),
  );
}

export function board(v, c) {
  const tb = v.table;
  const facts = h(
    'div',
    { className: 'facts' },
    tb.deal !== null ? h('span', { className: 'fact' }, t('hazari.fact.deal', { deal: tb.deal + 1 })) : null,
    tb.dealer !== null
      ? h('span', { className: 'fact' }, t('hazari.fact.dealer', { name: c.name(tb.dealer) }))
      : null,
    tb.first_to_lay !== null
      ? h('span', { className: 'fact' }, t('hazari.fact.firstToLay', { name: c.name(tb.first_to_lay) }))
      : null,
    h('span', { className: 'fact' }, t('hazari.fact.target', { target: tb.target })),
  );
  const scores = h(
    'table',
    { className: 'list', tabindex: '0', 'aria-label': t('hazari.scores') },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, t('hazari.col.player')),
        h('th', { scope: 'col' }, t('hazari.col.lastDeal')),
        h('th', { scope: 'col' }, t('hazari.col.total')),
      ),
    ),
    h(
      'tbody',
      {},
      v.seats.map((s) =>
        h(
          'tr',
          {},
          h('td', {}, c.name(s.seat)),
          h(
            'td',
            {},
            tb.last_deal && tb.last_deal.points ? String(tb.last_deal.points[s.seat]) : t('common.nobody'),
          ),
          h('td', {}, String(tb.scores[s.seat])),
        ),
      ),
    ),
  );
  const last = tb.last_deal
    ? [
        h('h3', {}, t('hazari.lastDeal', { deal: tb.last_deal.deal + 1 })),
        h(
          'div',
          { className: 'rounds', id: 'rounds' },
          tb.last_deal.rounds.map((r) => roundView(r, c)),
        ),
      ]
    : [h('p', { className: 'hint' }, t('hazari.roundsLater'))];
  return [facts, h('h3', {}, t('hazari.scores')), scores, ...last];
}

/** What the player may want to see while arranging, beside the hand on a phone: the last
 * deal, round by round, in a line each. */
export function decide(v, c) {
  const last = v.table.last_deal;
  if (!last) return null;
  return [
    h('p', { className: 'decide-title' }, t('hazari.lastDeal', { deal: last.deal + 1 })),
    h(
      'ol',
      { className: 'decide-rounds' },
      last.rounds.map((r) =>
        h(
          'li',
          {},
          t('hazari.round', { round: r.round, name: c.name(r.winner), count: r.points }),
        ),
      ),
    ),
  ];
}

function swapCards(a, b) {
  const groups = working.groups;
  const card = groups[a.g][a.i];
  groups[a.g][a.i] = groups[b.g][b.i];
  groups[b.g][b.i] = card;
}

function moveGroup(g, by) {
  const groups = working.groups;
  [groups[g], groups[g + by]] = [groups[g + by], groups[g]];
  picked = null;
}

function groupsEditor(c) {
  const bad = firstOutOfOrder(working.groups);
  return h(
    'div',
    { className: 'groups', id: 'groups' },
    working.groups.map((group, g) =>
      h(
        'div',
        {
          className: `group${bad === g ? ' bad' : ''}`,
          role: 'group',
          'aria-label': t('hazari.group', { n: g + 1 }),
          dataset: { group: String(g) },
        },
        h('span', { className: 'label' }, t('hazari.group', { n: g + 1 })),
        h(
          'span',
          { className: 'cards' },
          group.map((card, i) =>
            cardButton(card, {
              pressed: picked !== null && picked.g === g && picked.i === i,
              focusKey: `g${g}-${i}`,
              onclick: () => {
                if (picked === null) picked = { g, i };
                else if (picked.g === g && picked.i === i) picked = null;
                else {
                  swapCards(picked, { g, i });
                  picked = null;
                }
                c.rerender();
              },
            }),
          ),
        ),
        h(
          'span',
          { className: 'combo' },
          bad === g
            ? t('hazari.comboBeatsAbove', { combo: describeGroup(group) })
            : describeGroup(group),
        ),
        g < 3
          ? h(
              'span',
              { className: 'moves' },
              h(
                'button',
                {
                  type: 'button',
                  disabled: g === 0,
                  'aria-label': t('hazari.moveUp', { n: g + 1 }),
                  dataset: { focus: `up-${g}` },
                  onclick: () => {
                    moveGroup(g, -1);
                    c.rerender();
                  },
                },
                '↑',
              ),
              h(
                'button',
                {
                  type: 'button',
                  disabled: g === 2,
                  'aria-label': t('hazari.moveDown', { n: g + 1 }),
                  dataset: { focus: `down-${g}` },
                  onclick: () => {
                    moveGroup(g, 1);
                    c.rerender();
                  },
                },
                '↓',
              ),
            )
          : null,
      ),
    ),
  );
}

function readOnlyGroups(groups) {
  return h(
    'div',
    { className: 'groups' },
    groups.map((group, g) =>
      h(
        'div',
        { className: 'group' },
        h('span', { className: 'label' }, t('hazari.group', { n: g + 1 })),
        cardRow(group),
        h('span', { className: 'combo' }, describeGroup(group)),
      ),
    ),
  );
}

export function you(v, c) {
  const tb = v.table;
  const hand = v.hand || [];
  const suggestion = (v.legal_moves || []).find((m) => m.action === 'arrange');
  if (tb.phase === 'arranging' && tb.arrangement) {
    return [readOnlyGroups(tb.arrangement), h('p', { className: 'hint' }, t('hazari.saidUp'))];
  }
  if (tb.phase === 'arranging' && c.seat !== null && (tb.said_up || [])[c.seat])
    return [cardRow(hand), h('p', { className: 'hint' }, t('hazari.saidUp'))];
  if (tb.phase !== 'arranging' || !suggestion) {
    return [
      cardRow(hand),
      h(
        'p',
        { className: 'hint' },
        v.status === 'ended' ? t('hazari.hint.over') : t('hazari.hint.nextDeal'),
      ),
    ];
  }
  const sameHand =
    working &&
    working.deal === tb.deal &&
    working.groups.flat().length === hand.length &&
    working.groups.flat().every((card) => hand.includes(card));
  if (!sameHand) {
    working = { deal: tb.deal, groups: suggestion.groups.map((g) => [...g]) };
    picked = null;
  }
  const keys = working.groups.map(groupKey);
  // Say up and the order's verdict are the moves; how to arrange follows the groups (on a
  // phone the moves come first, above the groups).
  const actions = h(
    'div',
    {},
    h(
      'div',
      { className: 'moves' },
      h(
        'button',
        {
          type: 'button',
          className: 'primary',
          dataset: { focus: 'say-up', action: 'arrange' },
          onclick: () => c.submit({ action: 'arrange', groups: working.groups.map((g) => [...g]) }),
        },
        t('hazari.sayUp'),
      ),
      h(
        'button',
        {
          type: 'button',
          dataset: { focus: 'reset', action: 'reset' },
          onclick: () => {
            working = null;
            c.rerender();
          },
        },
        t('hazari.reset'),
      ),
      h(
        'span',
        { className: 'hint' },
        keys.every((k, i) => i === 0 || k <= keys[i - 1])
          ? t('hazari.orderOk')
          : t('hazari.orderNotYet'),
      ),
    ),
  );
  return [[groupsEditor(c), h('p', { className: 'hint' }, t('hazari.hint.arrange'))], actions];
}

export function onKey(event, v, c) {
  if (event.key === 'Escape' && picked) {
    picked = null;
    c.rerender();
    return true;
  }
  return false;
}
