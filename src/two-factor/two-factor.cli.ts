import { positiveInt, parseFlags } from '../cli/args';
import type { CliCommand } from '../cli/command';
import { notFound } from '../shared/errors/app-error';
import { User } from '../users/user.model';
import { deleteTwoFactor, enabledTwoFactor } from './two-factor.service';

/**
 * The way back for a user who lost both their phone and their recovery codes: an operator turns
 * two-factor sign-in off (their password still guards the dashboard; they can set it up again).
 */
export const twoFactorOff: CliCommand = {
  name: 'user:2fa-off',
  usage: 'user:2fa-off --user ID',
  async run(argv) {
    const flags = parseFlags(argv, ['user']);
    const userId = positiveInt(flags, 'user');
    const user = await User.findOne({ id: userId }).lean();
    if (!user) throw notFound('User not found');
    const wasOn = Boolean(await enabledTwoFactor(userId));
    await deleteTwoFactor(userId);
    return { id: userId, username: user.username, twoFactor: 'off', wasOn };
  },
};
