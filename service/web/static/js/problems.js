// Any refusal the server answers, in the player's words. A problem document carries a stable
// `code` and its `params` (and, for a move the rules refuse, its `rule`); the message comes from
// the problems catalog (load the 'problems' area). The English `detail` is for API clients and
// is never shown: a code this page does not know gets a generic message in the player's language.
import { has, t } from './i18n.js';

/** An error whose message is already in the player's words (thrown by the pages themselves). */
export class Said extends Error {}

/** A field's or option's name as the form calls it: the last part of a dotted path. */
function label(path) {
  const name = String(path || '').split('.').pop();
  return has(`problems.field.${name}`) ? t(`problems.field.${name}`) : t('problems.field.other');
}

// The constraints the message words (as ICU selectors, which take no hyphen); others are 'other'.
const CONSTRAINTS = { required: 'required', unknown: 'unknown', 'min-length': 'minLength', 'max-length': 'maxLength', pattern: 'pattern', minimum: 'minimum', maximum: 'maximum', choice: 'choice' };

/** The parameters of a code, made ready for its message (names as labels, bounds as numbers). */
function paramsOf(problem, extra) {
  const params = { status: problem.status || '', ...(problem.params || {}), ...extra };
  if ('field' in params) params.field = label(params.field);
  if ('option' in params) params.option = label(params.option);
  if (problem.code === 'invalid-field') params.constraint = CONSTRAINTS[params.constraint] || 'other';
  if (problem.code === 'seats-out-of-range') params.fixed = params.min === params.max ? 'yes' : 'no';
  for (const key of ['limit', 'min', 'max', 'value']) if (params[key] === undefined || params[key] === null) params[key] = '';
  return params;
}

/** The message for a problem document (`extra`: parameters the page adds, such as a card). */
export function problemMessage(problem, extra = {}) {
  const p = problem || {};
  const rule = p.rule || (p.params && p.params.rule);
  if (rule && has(`problems.rule.${rule}`)) return t(`problems.rule.${rule}`, { ...(p.params || {}), ...extra });
  const code = p.code || String(p.type || '').split('/').pop();
  const field = String((p.params && p.params.field) || p.field || '');
  // A client seed of the wrong form has a message of its own, naming what a seed may hold.
  if (code === 'invalid-field' && field.endsWith('client_seed')) return t('problems.type.bad-client-seed');
  const slug = String(p.type || '').split('/').pop();
  for (const key of [`problems.code.${code}`, `problems.type.${code}`, `problems.type.${slug}`])
    if (code && has(key)) return t(key, paramsOf({ ...p, code }, extra));
  return t('problems.unknown', { status: p.status || '?' });
}

/** Any error the pages meet, in the player's words: a problem, a lost connection, or an error
 * the page itself worded (`Said`). Anything else (a bug) gets the generic message. */
export function errorText(error, extra = {}) {
  if (!error) return '';
  if (error.problem) return problemMessage({ status: error.status, ...error.problem }, extra);
  if (error instanceof Said) return error.message;
  if (error instanceof TypeError) return t('problems.network');
  return t('problems.unknown', { status: '?' });
}
