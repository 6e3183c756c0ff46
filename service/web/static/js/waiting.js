// A table still seating: anyone at it can fill a seat with a bot or copy the invitation
// (the plain table address: whoever opens it can sit down).
import { gamePath, postJson } from './api.js';
import { $ } from './dom.js';
import { copyText } from './clipboard.js';
import { t } from './i18n.js';
import { errorText } from './problems.js';

let current = null;
let adding = false;

export const inviteLink = (gameId) =>
  `${window.location.origin}/table/${encodeURIComponent(gameId)}`;

export function renderWaiting(view, gameId) {
  current = view;
  const panel = $('#waiting');
  panel.hidden = view.status !== 'seating';
  if (panel.hidden) return;
  const free = view.seats.filter((s) => !s.name).length;
  $('#waiting-free').textContent = t('seats.waiting.free', { count: free });
  $('#invite-url').value = inviteLink(gameId);
  $('#add-bot').disabled = adding || free === 0;
}

export function setUpWaiting(gameId) {
  $('#add-bot').addEventListener('click', async () => {
    if (!current || adding) return;
    adding = true;
    const button = $('#add-bot');
    button.disabled = true;
    const message = $('#waiting-msg');
    message.textContent = '';
    const number = current.seats.filter((s) => s.bot).length + 1;
    try {
      await postJson(`${gamePath(gameId)}/seats`, {
        bot: true,
        name: t('seats.waiting.botName', { number }),
      });
    } catch (error) {
      message.textContent = t('seats.waiting.botRefused', { reason: errorText(error) });
    } finally {
      adding = false;
      button.disabled = false;
    }
  });
  $('#copy-invite').addEventListener('click', async () => {
    const ok = await copyText(inviteLink(gameId), $('#invite-url'));
    $('#waiting-msg').textContent = ok ? t('seats.waiting.copied') : t('seats.link.copyByHand');
  });
}
