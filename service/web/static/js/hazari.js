// Hazari Lite at the table: arrange four groups (starting from the suggested
// arrangement) by swapping cards, then say up.
import { cardButton, cardRow } from './cards.js';
import { h } from './dom.js';
import { describeGroup, firstOutOfOrder, groupKey, ORDER_RULE } from './hazari-eval.js';

let working = null; // {deal, groups}
let picked = null; // {g, i}

const ORDER_RULES = new Set(['groups_out_of_order', 'four_card_group_not_lowest']);

export function explain(problem) {
  return ORDER_RULES.has(problem.rule) ? ORDER_RULE : null;
}

export function seatFacts(v, s) {
  const t = v.table;
  const facts = [];
  if (t.dealer === s) facts.push('dealer');
  if (t.phase === 'arranging') facts.push(t.said_up[s] ? 'said up' : 'arranging');
  return facts;
}

export function statusText(v) {
  return v.table.phase === 'arranging' ? 'arrange your four groups and say up' : '';
}

export function resultText(v, c) {
  const winners = (v.result.winners || []).map(c.name).join(', ');
  return `${winners ? `${winners} won. ` : ''}Scores: ${v.seats.map((s) => `${c.name(s.seat)} ${v.result.scores[s.seat]}`).join(', ')}.`;
}

function roundView(r, c) {
  return h(
    'div',
    { className: 'round', dataset: { round: String(r.round) } },
    h('h4', {}, `Round ${r.round}: ${c.name(r.winner)} wins ${r.points} points`),
    h(
      'div',
      { className: 'laid' },
      r.order.map((s) =>
        h(
          'div',
          { className: s === r.winner ? 'winner' : '' },
          h('div', { className: 'who' }, c.name(s)),
          cardRow(r.laid[s], 'small'),
          h('div', { className: 'hint' }, r.combos[s]),
        ),
      ),
    ),
  );
}

export function board(v, c) {
  const t = v.table;
  const facts = h(
    'div',
    { className: 'facts' },
    h(
      'span',
      { className: 'fact' },
      'Deal ',
      h('b', {}, t.deal === null ? '—' : String(t.deal + 1)),
    ),
    t.dealer !== null
      ? h('span', { className: 'fact' }, 'Dealer ', h('b', {}, c.name(t.dealer)))
      : null,
    t.first_to_lay !== null
      ? h('span', { className: 'fact' }, 'First to lay ', h('b', {}, c.name(t.first_to_lay)))
      : null,
    h('span', { className: 'fact' }, 'Target ', h('b', {}, String(t.target))),
  );
  const scores = h(
    'table',
    { className: 'list', 'aria-label': 'Scores' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Player'),
        h('th', { scope: 'col' }, 'Last deal'),
        h('th', { scope: 'col' }, 'Total'),
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
          h('td', {}, t.last_deal && t.last_deal.points ? String(t.last_deal.points[s.seat]) : '—'),
          h('td', {}, String(t.scores[s.seat])),
        ),
      ),
    ),
  );
  const last = t.last_deal
    ? [
        h('h3', {}, `Deal ${t.last_deal.deal + 1}, as played`),
        h(
          'div',
          { className: 'rounds', id: 'rounds' },
          t.last_deal.rounds.map((r) => roundView(r, c)),
        ),
      ]
    : [
        h(
          'p',
          { className: 'hint' },
          'The rounds of each deal appear here once everyone has said up.',
        ),
      ];
  return [facts, h('h3', {}, 'Scores'), scores, ...last];
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
          'aria-label': `Group ${g + 1}`,
          dataset: { group: String(g) },
        },
        h('span', { className: 'label' }, `Group ${g + 1}`),
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
          describeGroup(group),
          bad === g ? ' — beats the group above' : '',
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
                  'aria-label': `Move group ${g + 1} up`,
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
                  'aria-label': `Move group ${g + 1} down`,
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
        h('span', { className: 'label' }, `Group ${g + 1}`),
        cardRow(group),
        h('span', { className: 'combo' }, describeGroup(group)),
      ),
    ),
  );
}

export function you(v, c) {
  const t = v.table;
  const hand = v.hand || [];
  const suggestion = (v.legal_moves || []).find((m) => m.action === 'arrange');
  if (t.phase === 'arranging' && t.arrangement) {
    return [
      readOnlyGroups(t.arrangement),
      h('p', { className: 'hint' }, 'You said up. Play starts when everyone has.'),
    ];
  }
  if (t.phase !== 'arranging' || !suggestion) {
    return [
      cardRow(hand),
      h(
        'p',
        { className: 'hint' },
        v.status === 'ended' ? 'The game is over.' : 'Waiting for the next deal.',
      ),
    ];
  }
  const sameHand =
    working &&
    working.deal === t.deal &&
    working.groups.flat().length === hand.length &&
    working.groups.flat().every((card) => hand.includes(card));
  if (!sameHand) {
    working = { deal: t.deal, groups: suggestion.groups.map((g) => [...g]) };
    picked = null;
  }
  const keys = working.groups.map(groupKey);
  const actions = h(
    'div',
    {},
    h(
      'p',
      { className: 'hint' },
      'Pick a card, then another, to swap them; ↑ ↓ move whole three-card groups. ' +
        'Group 1 must be the strongest and the four-card group the weakest.',
    ),
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
        'Say up',
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
        'Back to the suggestion',
      ),
      h(
        'span',
        { className: 'hint' },
        keys.every((k, i) => i === 0 || k <= keys[i - 1])
          ? 'The order looks right.'
          : 'The groups are not strongest first yet.',
      ),
    ),
  );
  return [groupsEditor(c), actions];
}

export function onKey(event, v, c) {
  if (event.key === 'Escape' && picked) {
    picked = null;
    c.rerender();
    return true;
  }
  return false;
}
