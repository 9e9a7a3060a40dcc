import { html, type SafeHtml } from '../html';
import { layout } from './layout';

export type SecurityField = 'current' | 'code';

export interface SecurityView {
  csrf: string;
  enabled: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
  /** A set-up under way: its QR code (SVG), secret and URI, and the form for the first code. */
  enrolment?: { qrSvg: string; secret: string; uri: string };
  /** Recovery codes just made: shown on this one answer only. */
  recoveryCodes?: string[];
  notice?: string;
  /** A failure no field names (a conflict, say). */
  problem?: string;
  /** Which form a field error belongs to, and the errors. */
  form?: 'setup' | 'enable' | 'codes' | 'disable';
  errors?: Partial<Record<SecurityField, string>>;
}

function fieldError(id: string, message: string | undefined): SafeHtml {
  return message ? html`<p class="error" id="${id}-error">${message}</p>` : html``;
}

function described(id: string, message: string | undefined): SafeHtml {
  return message ? html` aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

function passwordField(id: string, message: string | undefined): SafeHtml {
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

function codeField(id: string, label: string, message: string | undefined): SafeHtml {
  return html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="code"
      type="text"
      inputmode="numeric"
      autocomplete="one-time-code"
      autocapitalize="none"
      spellcheck="false"
      maxlength="32"
      required${described(id, message)}
    />
    ${fieldError(id, message)}`;
}

function recoveryCodesBlock(codes: string[]): SafeHtml {
  return html`<div class="notice" role="status">
    <p>
      Your recovery codes, shown only this once: store them somewhere safe. Each signs you in once
      when your phone is not at hand.
    </p>
    <ol class="codes" id="recovery-codes">
      ${codes.map((c) => html`<li><code>${c}</code></li>`)}
    </ol>
    <p><button type="button" data-copy="${codes.join('\n')}">Copy the codes</button></p>
  </div>`;
}

function enrolmentBlock(view: SecurityView): SafeHtml {
  const { enrolment, csrf, errors = {} } = view;
  if (!enrolment) return html``;
  const image = `data:image/svg+xml;base64,${Buffer.from(enrolment.qrSvg).toString('base64')}`;
  const codeError = view.form === 'enable' ? errors.code : undefined;
  return html`<h3 id="enrol-h">Scan this QR code with your authenticator app</h3>
    <p>
      <img
        src="${image}"
        width="240"
        height="240"
        alt="QR code of the two-factor secret for your authenticator app"
      />
    </p>
    <p>
      Cannot scan it? Type this secret into the app instead:
      <code class="key" id="totp-secret">${enrolment.secret}</code>
    </p>
    <form method="post" action="/app/security/2fa/enable" class="stack" novalidate>
      <input type="hidden" name="_csrf" value="${csrf}" />
      ${codeField('enable-code', 'The 6-digit code the app shows now', codeError)}
      <button type="submit">Turn on two-factor sign-in</button>
    </form>`;
}

function enabledBlock(view: SecurityView): SafeHtml {
  const { csrf, errors = {} } = view;
  const err = (form: SecurityView['form'], field: SecurityField) =>
    view.form === form ? errors[field] : undefined;
  return html`<p>
      Two-factor sign-in is <strong>on</strong> (since ${view.enabledAt}). ${view.recoveryCodesLeft}
      of 10 recovery codes are left.
    </p>
    ${view.recoveryCodes ? recoveryCodesBlock(view.recoveryCodes) : ''}
    <h3 id="codes-h">New recovery codes</h3>
    <form method="post" action="/app/security/2fa/recovery-codes" class="stack" novalidate>
      <input type="hidden" name="_csrf" value="${csrf}" />
      ${passwordField('codes-current', err('codes', 'current'))}
      ${codeField('codes-code', 'Code from your app', err('codes', 'code'))}
      <button type="submit">Make new recovery codes</button>
    </form>
    <h3 id="devices-h">Remembered devices</h3>
    <form method="post" action="/app/security/2fa/forget-devices" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <p>Devices where you chose "remember this device" skip the code for 30 days.</p>
      <button type="submit">Forget every remembered device</button>
    </form>
    <h3 id="disable-h">Turn off</h3>
    <form
      method="post"
      action="/app/security/2fa/disable"
      class="stack"
      novalidate
      data-confirm="Turn off two-factor sign-in? Your password alone will sign you in."
    >
      <input type="hidden" name="_csrf" value="${csrf}" />
      ${passwordField('disable-current', err('disable', 'current'))}
      ${codeField('disable-code', 'Code from your app, or a recovery code', err('disable', 'code'))}
      <button type="submit">Turn off two-factor sign-in</button>
    </form>`;
}

function disabledBlock(view: SecurityView): SafeHtml {
  const { csrf, errors = {} } = view;
  return html`<p>
      Two-factor sign-in is <strong>off</strong>. With it on, signing in to the dashboard asks for a
      code from an authenticator app on your phone as well as your password.
    </p>
    ${
      view.enrolment
        ? enrolmentBlock(view)
        : html`<form method="post" action="/app/security/2fa/setup" class="stack" novalidate>
            <input type="hidden" name="_csrf" value="${csrf}" />
            ${passwordField('setup-current', view.form === 'setup' ? errors.current : undefined)}
            <button type="submit">Set up two-factor sign-in</button>
          </form>`
    }`;
}

export function securityPage(view: SecurityView): string {
  const body = html`<h1>Security</h1>
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
    ${view.problem ? html`<p class="error" role="alert">${view.problem}</p>` : ''}
    <section aria-labelledby="twofactor-h">
      <h2 id="twofactor-h">Two-factor sign-in</h2>
      ${view.enabled ? enabledBlock(view) : disabledBlock(view)}
      ${!view.enabled && view.recoveryCodes ? recoveryCodesBlock(view.recoveryCodes) : ''}
    </section>
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      <p>
        Signed in on a computer you no longer use, or not sure? This signs out every dashboard
        session of yours, this one included. API keys keep working.
      </p>
      <form method="post" action="/app/security/signout-everywhere" class="stack">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <button type="submit">Sign out everywhere</button>
      </form>
    </section>`;
  return layout({ title: 'Security', csrf: view.csrf, path: '/app/security', body });
}
