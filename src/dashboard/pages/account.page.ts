import { html, type SafeHtml } from '../html';
import { layout } from './layout';

export interface PlanView {
  name: string;
  /** API (and dashboard) requests allowed per window. */
  rateLimit: number;
  windowSeconds: number;
  expires: string | null;
  /** Most records of each kind the plan allows; undefined: unlimited. */
  limits: { links?: number; qrCodes?: number; domains?: number };
}

const limit = (max: number | undefined) => (max === undefined ? 'unlimited' : `at most ${max}`);

export interface AccountView {
  csrf: string;
  email: string;
  username: string;
  registered: string;
  plan: PlanView;
  /** A freshly rotated key: shown on this one answer only. */
  newKey?: string;
  notice?: string;
  errors?: Partial<
    Record<'email' | 'current' | 'password' | 'passwordCurrent' | 'keyCurrent', string>
  >;
}

function fieldError(id: string, message: string | undefined): SafeHtml {
  return message ? html`<p class="error" id="${id}-error">${message}</p>` : html``;
}

function described(id: string, message: string | undefined): SafeHtml {
  return message ? html` aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

/** The current password every account change asks for in a dashboard session. */
function currentPasswordField(id: string, message: string | undefined): SafeHtml {
  return html`<label for="${id}">Current password</label>
    <input
      id="${id}"
      name="current"
      type="password"
      autocomplete="current-password"
      required${described(id, message)}
    />
    ${fieldError(id, message)}`;
}

export function accountPage(view: AccountView): string {
  const { csrf, plan, errors = {} } = view;
  const body = html`<h1>Account</h1>
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
    <section aria-labelledby="plan-h">
      <h2 id="plan-h">Plan</h2>
      <dl class="facts">
        <dt>User</dt>
        <dd>${view.username} (since ${view.registered})</dd>
        <dt>Plan</dt>
        <dd>${plan.name}</dd>
        <dt>Requests</dt>
        <dd>${plan.rateLimit} per ${plan.windowSeconds} s (API key and dashboard together)</dd>
        <dt>Links</dt>
        <dd>${limit(plan.limits.links)}</dd>
        <dt>QR codes</dt>
        <dd>${limit(plan.limits.qrCodes)}</dd>
        <dt>Branded domains</dt>
        <dd>${limit(plan.limits.domains)}</dd>
        <dt>Ends</dt>
        <dd>${plan.expires ?? 'never'}</dd>
      </dl>
    </section>
    <section aria-labelledby="key-h">
      <h2 id="key-h">API key</h2>
      ${
        view.newKey
          ? html`<div class="notice" role="status">
              <p>
                Your new API key, shown only this once: store it now. The old key no longer works.
              </p>
              <p>
                <code class="key" id="new-key">${view.newKey}</code>
                <button type="button" data-copy="${view.newKey}">Copy</button>
              </p>
            </div>`
          : html`<p>
              Your key is stored hashed, so it cannot be shown again. Rotating it gives you a new
              one and stops the old one at once.
            </p>`
      }
      <form
        method="post"
        action="/app/account/key"
        class="stack"
        novalidate
        data-confirm="Rotate the API key? Programs using the current key stop working at once."
      >
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${currentPasswordField('key-current', errors.keyCurrent)}
        <button type="submit">Rotate API key</button>
      </form>
    </section>
    <section aria-labelledby="email-h">
      <h2 id="email-h">Email</h2>
      <form method="post" action="/app/account/email" class="stack" novalidate>
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="email">New email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="email"
          required
          value="${view.email}"
          ${described('email', errors.email)}
        />
        ${fieldError('email', errors.email)}
        ${currentPasswordField('email-current', errors.current)}
        <button type="submit">Change email</button>
      </form>
    </section>
    <section aria-labelledby="password-h">
      <h2 id="password-h">Password</h2>
      <form method="post" action="/app/account/password" class="stack" novalidate>
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${currentPasswordField('password-current', errors.passwordCurrent)}
        <label for="password">New password (at least 8 characters)</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="8"
          ${described('password', errors.password)}
        />
        ${fieldError('password', errors.password)}
        <button type="submit">Change password</button>
      </form>
    </section>`;
  return layout({ title: 'Account', csrf, path: '/app/account', body });
}
