import type { AccountSwitch } from '../acting';
import { html, type SafeHtml } from '../html';

/**
 * The account switcher of the top bar: a plain form (it works without the client script), so
 * choosing an account is a deliberate submit rather than a change of context on select.
 */
export function accountSwitcher(s: AccountSwitch, csrf: string): SafeHtml {
  const options = [
    html`<option value="" ${s.acting ? '' : html` selected`}>your own (${s.own})</option>`,
    ...s.accounts.map(
      (a) =>
        html`<option value="${a.id}" ${s.acting?.id === a.id ? html` selected` : ''}>
          ${a.username} (${a.role})
        </option>`,
    ),
  ];
  return html`<form
    method="post"
    action="/app/switch"
    class="switcher${s.acting ? ' acting' : ''}"
    aria-label="Account switcher"
  >
    <input type="hidden" name="_csrf" value="${csrf}" />
    <input type="hidden" name="back" value="${s.back}" />
    <label for="account-switch">Account</label>
    <select id="account-switch" name="account">
      ${options}
    </select>
    <button type="submit">Switch</button>
  </form>`;
}
