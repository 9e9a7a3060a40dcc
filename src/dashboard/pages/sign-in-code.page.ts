import { html } from '../html';
import { layout } from './layout';

export interface SignInCodeView {
  csrf: string;
  error?: string;
}

/** The second step of signing in: a code from the authenticator app, or a recovery code. */
export function signInCodePage({ csrf, error }: SignInCodeView): string {
  const body = html`<section class="narrow">
    <h1>Two-factor sign-in</h1>
    <p>
      Enter the 6-digit code your authenticator app shows for linkqr, or one of your recovery codes.
    </p>
    ${error ? html`<p class="error" role="alert" id="code-error">${error}</p>` : ''}
    <form method="post" action="/app/signin/code" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <label for="code">Code</label>
      <input
        id="code"
        name="code"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        autocapitalize="none"
        spellcheck="false"
        maxlength="32"
        required${error ? html` aria-invalid="true" aria-describedby="code-error"` : ''}
      />
      <div class="field check">
        <input id="remember" name="remember" type="checkbox" value="on" />
        <label for="remember">Remember this device for 30 days</label>
      </div>
      <button type="submit">Verify</button>
    </form>
    <form method="post" action="/app/signout">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <button type="submit" class="link">Cancel and sign in again</button>
    </form>
  </section>`;
  return layout({ title: 'Two-factor sign-in', csrf, body });
}
