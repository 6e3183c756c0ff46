// The panels that close a hand, a deal or the match: places, points or chips by name, who
// won, the running totals and (Murlan) the exchange. They stay until closed, or until the
// next deal needs the player.
import { h } from './dom.js';
import { describe, nameList, seatName } from './events.js';
import { t } from './i18n.js';

/** Events that close a hand or deal, and those that close the match. */
export const HAND_ENDS = new Set(['HandEnded', 'DealScored', 'PotSettled']);
export const MATCH_ENDS = new Set(['MatchWon', 'MatchEnded']);

const signed = (n) => t('table.summary.signed', { value: n, sign: n > 0 ? '+' : '' });

/** A table of figures in a box of its own: wider than a phone in a long language, it scrolls
 * sideways inside the box instead of cutting its last column off. */
function table(head, rows, label) {
  return h('div', { className: 'table-scroll' }, figures(head, rows, label));
}

function figures(head, rows, label) {
  return h(
    'table',
    { className: 'list summary-table', 'aria-label': label },
    h('thead', {}, h('tr', {}, head.map((x) => h('th', { scope: 'col' }, x)))),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          { className: r.mark ? 'winner' : '' },
          r.cells.map((x) => h('td', {}, x)),
        ),
      ),
    ),
  );
}

/** A hand or deal scored in points (Murlan, Hazari): a heading, who did best, the places
 * with this hand's points and the running totals, and the match's target. */
function pointsPanel(s, seats, order, { title, lead, thisCol }) {
  const e = s.event;
  const rows = order.map((seat, i) => ({
    mark: i === 0,
    cells: [
      t('table.summary.place', { place: i + 1 }),
      seatName(seats, seat),
      t('table.summary.points', { count: e.points[seat] }),
      String(e.scores[seat]),
    ],
  }));
  const head = [
    t('table.summary.col.place'),
    t('table.summary.col.player'),
    t(thisCol),
    t('table.summary.col.total'),
  ];
  return [
    h('h2', { id: 'summary-h' }, title),
    h('p', { className: 'summary-lead' }, lead),
    table(head, rows, title),
    s.target ? h('p', { className: 'hint' }, t('table.summary.target', { target: s.target })) : null,
  ];
}

function murlanHand(s, seats) {
  const e = s.event;
  const order = e.order && e.order.length ? e.order : seats.map((x) => x.seat);
  const exchange = (s.exchange || []).map((x) => h('li', {}, describe(x, seats)));
  return [
    ...pointsPanel(s, seats, order, {
      title: t('table.summary.murlanTitle', { hand: e.hand + 1 }),
      lead: t('table.summary.murlanFirst', { name: seatName(seats, order[0]) }),
      thisCol: 'table.summary.col.thisHand',
    }),
    exchange.length
      ? [h('h3', {}, t('table.summary.exchange')), h('ul', { className: 'summary-exchange' }, exchange)]
      : h('p', { className: 'hint' }, t('table.summary.noExchangeYet')),
  ];
}

function hazariDeal(s, seats) {
  const e = s.event;
  const order = seats.map((x) => x.seat).sort((a, b) => e.points[b] - e.points[a]);
  return pointsPanel(s, seats, order, {
    title: t('table.summary.hazariTitle', { deal: e.deal + 1 }),
    lead: t('table.summary.hazariBest', { name: seatName(seats, order[0]), count: e.points[order[0]] }),
    thisCol: 'table.summary.col.thisDeal',
  });
}

function aziPot(s, seats) {
  const e = s.event;
  const name = (x) => seatName(seats, x);
  const rows = seats.map((x) => x.seat).map((seat) => ({
    mark: seat === e.winner,
    cells: [
      name(seat),
      String(e.contributions[seat] ?? 0),
      String(e.payouts[seat] ?? 0),
      signed((e.payouts[seat] ?? 0) - (e.contributions[seat] ?? 0)),
      s.stacks ? String(s.stacks[seat]) : '…',
    ],
  }));
  return [
    h('h2', { id: 'summary-h' }, t('table.summary.aziTitle', { hand: s.hand ?? '' })),
    h(
      'p',
      { className: 'summary-lead' },
      t(e.winner_short ? 'table.summary.aziWinnerShort' : 'table.summary.aziWinner', {
        name: name(e.winner),
        pot: e.pot,
      }),
    ),
    table(
      [
        t('table.summary.col.player'),
        t('table.summary.col.putIn'),
        t('table.summary.col.paidOut'),
        t('table.summary.col.net'),
        t('table.summary.col.stack'),
      ],
      rows,
      t('table.summary.aziTitle', { hand: s.hand ?? '' }),
    ),
  ];
}

/** The final standings from the finished game's result. */
function final(view, gameId) {
  const seats = view.seats;
  const name = (x) => seatName(seats, x);
  const r = view.result || {};
  const all = seats.map((x) => x.seat);
  let head;
  let rows;
  let lead;
  if (view.game === 'azi') {
    const res = r.results || [];
    const order = all.sort((a, b) => (r.stacks || res)[b] - (r.stacks || res)[a]);
    head = [
      t('table.summary.col.place'),
      t('table.summary.col.player'),
      t('table.summary.col.stack'),
      t('table.summary.col.result'),
    ];
    rows = order.map((seat, i) => ({
      mark: i === 0,
      cells: [
        t('table.summary.place', { place: i + 1 }),
        name(seat),
        String((r.stacks || [])[seat] ?? ''),
        signed(res[seat] ?? 0),
      ],
    }));
    lead = t('table.summary.aziFinal', { name: name(order[0]) });
  } else {
    const scores = r.scores || [];
    const order = all.sort((a, b) => scores[b] - scores[a]);
    head = [
      t('table.summary.col.place'),
      t('table.summary.col.player'),
      t('table.summary.col.total'),
    ];
    rows = order.map((seat, i) => ({
      mark: (r.winners || []).includes(seat),
      cells: [t('table.summary.place', { place: i + 1 }), name(seat), String(scores[seat])],
    }));
    const winners = (r.winners || []).map(name);
    lead = winners.length
      ? t('table.summary.winners', { names: nameList(winners), count: winners.length })
      : t('table.summary.noWinner');
  }
  return [
    h('h2', { id: 'summary-h' }, t('table.summary.finalTitle')),
    h('p', { className: 'summary-lead' }, lead),
    table(head, rows, t('table.summary.finalTitle')),
    h(
      'p',
      {},
      h(
        'a',
        { className: 'button primary', href: `/replay/${encodeURIComponent(gameId)}`, id: 'summary-replay' },
        t('table.summary.replay'),
      ),
      ' ',
      h('a', { className: 'button', href: '/' }, t('table.summary.lobby')),
    ),
  ];
}

/** The panel's content for `s` ({event, exchange, stacks, target, hand} or {final: true}). */
export function summaryContent(s, view, gameId) {
  if (s.final) return final(view, gameId);
  const seats = view.seats;
  switch (s.event.type) {
    case 'HandEnded':
      return murlanHand(s, seats);
    case 'DealScored':
      return hazariDeal(s, seats);
    case 'PotSettled':
      return aziPot(s, seats);
    default:
      return [];
  }
}
