// The fairness document (docs/fairness.md, in English): the page's own words in the reader's
// language, and a note saying the document itself is English (not shown to English readers).
import { loadCatalogs, locale, translatePage } from './i18n.js';

loadCatalogs(['common', 'fairness']).then(() => {
  translatePage();
  if (locale() === 'en') document.getElementById('in-english').hidden = true;
});
