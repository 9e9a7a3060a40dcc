// The Team page: the members of the user's own account with their roles, and the accounts the
// user is a member of, each with a button that makes the dashboard act in it.
import { csrf, errorBox, h, nextId, notice, ownApi, table } from './core.js';
import { showError } from './forms.js';
/** @typedef {import('../types').TeamPageData} TeamPageData */
/** @typedef {import('../types').MemberItem} MemberItem */
/** @typedef {import('../types').FormRow} FormRow */

/**
 * A form that makes the dashboard act in `account` ('' for the user's own), then shows `back`.
 * @param {string} account
 * @param {string} label
 * @param {string} [ariaLabel]
 */
function switchForm(account, label, ariaLabel) {
  return h(
    'form',
    { method: 'post', action: '/app/switch', class: 'inline' },
    h('input', { type: 'hidden', name: '_csrf', value: csrf }),
    h('input', { type: 'hidden', name: 'account', value: account }),
    h('input', { type: 'hidden', name: 'back', value: '/app/links' }),
    h('button', { type: 'submit', 'aria-label': ariaLabel }, label),
  );
}

/**
 * @param {TeamPageData['roles']} roles
 * @param {string} current
 * @param {string} id
 */
function roleSelect(roles, current, id) {
  return /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id, name: 'role' },
      roles.map((r) => h('option', { value: r.value, selected: r.value === current }, r.value)),
    )
  );
}

/** @param {HTMLElement} root @param {TeamPageData} data */
export function teamView(root, data) {
  const message = h('div', {});
  const members = h('div', { 'aria-live': 'polite' });
  const accounts = h('div', { 'aria-live': 'polite' });

  /**
   * @param {MemberItem} member
   * @param {HTMLSelectElement} select
   */
  async function changeRole(member, select) {
    try {
      await ownApi('PUT', `/team/${member.id}/update`, { role: select.value });
      await load();
      message.replaceChildren(notice(`${member.username} is now ${select.value}.`));
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  /** @param {MemberItem} member */
  async function remove(member) {
    if (!confirm(`Remove ${member.username}? Their access to your account ends at once.`)) return;
    try {
      await ownApi('DELETE', `/team/${member.id}/delete`);
      await load();
      message.replaceChildren(notice(`${member.username} has been removed.`));
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  /** @param {MemberItem[]} list */
  function memberTable(list) {
    if (!list.length) return notice('Nobody else works in your account yet.', 'muted');
    return table(['Member', 'Role', 'Added', 'Actions'], list, (member) => {
      const select = roleSelect(data.roles, member.role, nextId('member-role'));
      return [
        member.username || `user ${member.userid}`,
        h(
          'div',
          { class: 'actions' },
          h('label', { for: select.id, class: 'sr-only' }, `Role of ${member.username}`),
          select,
          h(
            'button',
            {
              type: 'button',
              onclick: () => changeRole(member, select),
              'aria-label': `Save role of ${member.username}`,
            },
            'Save role',
          ),
        ),
        `${member.created} UTC`,
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: () => remove(member),
            'aria-label': `Remove ${member.username}`,
          },
          'Remove',
        ),
      ];
    });
  }

  /** @param {MemberItem[]} list */
  function accountTable(list) {
    if (!list.length) {
      return notice('No one has added you to their account.', 'muted');
    }
    return table(['Account of', 'Your role', 'Since', ''], list, (account) => {
      const here = data.acting?.id === account.userid;
      return [
        account.username || `user ${account.userid}`,
        account.role,
        `${account.created} UTC`,
        here
          ? h('span', {}, 'The dashboard acts here now')
          : switchForm(
              String(account.userid),
              'Act in this account',
              `Act in this account: ${account.username}`,
            ),
      ];
    });
  }

  async function load() {
    try {
      const body = /** @type {{ data: { members: MemberItem[], accounts: MemberItem[] } }} */ (
        /** @type {unknown} */ (await ownApi('GET', '/team'))
      );
      members.replaceChildren(memberTable(body.data.members));
      accounts.replaceChildren(accountTable(body.data.accounts));
    } catch (error) {
      members.replaceChildren(errorBox(error));
    }
  }

  const status = h('div', { class: 'form-status' });
  const userId = nextId('member-username');
  const username = /** @type {HTMLInputElement} */ (
    h('input', {
      id: userId,
      name: 'username',
      type: 'text',
      autocomplete: 'off',
      required: true,
      'aria-describedby': `${userId}-error`,
    })
  );
  const roleId = nextId('member-new-role');
  const role = roleSelect(data.roles, 'viewer', roleId);
  role.setAttribute('aria-describedby', `${roleId}-help ${roleId}-error`);
  /** @type {FormRow[]} */
  const rows = [
    {
      field: { name: 'username' },
      input: username,
      error: h('p', { class: 'error', id: `${userId}-error`, hidden: true }),
      wrapper: h('div', {}),
    },
    {
      field: { name: 'role' },
      input: role,
      error: h('p', { class: 'error', id: `${roleId}-error`, hidden: true }),
      wrapper: h('div', {}),
    },
  ];
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    status,
    h(
      'div',
      { class: 'field' },
      h('label', { for: userId }, 'Username of an existing user (required)'),
      username,
      rows[0]?.error,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: roleId }, 'Role'),
      role,
      h(
        'ul',
        { class: 'help', id: `${roleId}-help` },
        data.roles.map((r) => h('li', {}, h('strong', {}, r.value), `: ${r.help}`)),
      ),
      rows[1]?.error,
    ),
    h('button', { type: 'submit' }, 'Add member'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren();
    for (const r of rows) {
      r.error.hidden = true;
      r.input.removeAttribute('aria-invalid');
    }
    try {
      const name = username.value.trim();
      await ownApi('POST', '/team/add', { username: name, role: role.value });
      username.value = '';
      await load();
      message.replaceChildren(notice(`${name} has been added as ${role.value}.`));
    } catch (error) {
      showError(rows, status, error);
    }
  });

  root.replaceChildren(
    data.acting
      ? h(
          'div',
          { class: 'notice' },
          h(
            'p',
            {},
            `The dashboard acts in the account of ${data.acting.username} (as ${data.acting.role}); this page is about your own account.`,
          ),
          switchForm('', 'Back to your own account'),
        )
      : '',
    message,
    h(
      'section',
      { 'aria-labelledby': 'members-h' },
      h('h2', { id: 'members-h' }, 'Members of your account'),
      h(
        'p',
        {},
        'A member works in your account with their own sign-in and keys; the records stay yours and count against your plan.',
      ),
      members,
      h('h3', {}, 'Add a member'),
      form,
    ),
    h(
      'section',
      { 'aria-labelledby': 'accounts-h' },
      h('h2', { id: 'accounts-h' }, 'Accounts you are a member of'),
      accounts,
    ),
  );
  load();
}
