// The rules pages: the text is rendered by the server (docs/rules, in the player's language
// when translated); this module puts the page's own words in the player's language.
import { PSEUDO, loadCatalogs, pickLanguage, t, translatePage } from './i18n.js';

async function start() {
  const root = document.documentElement;
  // The server chose the language (?lang=, the cardroom.lang cookie, Accept-Language).
  const lang = pickLanguage() === PSEUDO ? PSEUDO : root.lang || 'en';
  await loadCatalogs(['common', 'rules'], lang);
  translatePage();
  const game = root.dataset.game;
  const missing = document.getElementById('no-such-game');
  if (missing) {
    // Worded by the server already; again here for the pseudo-locale's layout checks.
    missing.textContent = t('rules.notFound', { game: missing.dataset.asked });
    document.title = t('rules.notFoundPageTitle');
  } else {
    document.title = game
      ? t('rules.pageTitle', { game: t(`common.game.${game}`) })
      : t('rules.indexPageTitle');
  }
}

start();
