import { html } from '../html';
import { layout } from './layout';

export interface SignInView {
  csrf: string;
  email?: string;
  error?: string;
  /** Where to go after signing in (an /app path). */
  next?: string;
}

export function signInPage({ csrf, email, error, next }: SignInView): string {
  const body = html`<section class="narrow">
    <h1>Sign in</h1>
    <p>
      Use the email and password of your linkqr account (set with <code>npm run cli</code> or by an
      administrator).
    </p>
    ${error ? html`<p class="error" role="alert" id="signin-error">${error}</p>` : ''}
    <form
      method="post"
      action="/app/signin"
      class="stack"
      ${error ? html` aria-describedby="signin-error"` : ''}
    >
      <input type="hidden" name="_csrf" value="${csrf}" />
      ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
      <label for="email">Email</label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="username"
        required
        value="${email ?? ''}"
      />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="current-password"
        required
      />
      <button type="submit">Sign in</button>
    </form>
  </section>`;
  return layout({ title: 'Sign in', csrf, body });
}
