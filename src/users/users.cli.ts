import Joi from 'joi';
import { parseFlags, positiveInt, required, UsageError } from '../cli/args';
import type { CliCommand } from '../cli/command';
import { PLAN_NAME_PATTERN } from '../plans/plans.config';
import { dateTimeInput } from '../shared/http/date-input';
import { EMAIL, PASSWORD, USERNAME } from './users.schemas';
import { createUser, rotateApiKey, setAdmin } from './users.service';

const userInput = Joi.object({
  email: EMAIL.required(),
  username: USERNAME.required(),
  plan: Joi.string().pattern(PLAN_NAME_PATTERN),
  password: PASSWORD,
  expires: dateTimeInput,
  admin: Joi.boolean(),
});

export const userCreate: CliCommand = {
  name: 'user:create',
  usage: 'user:create --email E --username U [--plan P] [--password W] [--expires DATE] [--admin]',
  async run(argv) {
    const flags = parseFlags(argv, ['email', 'username', 'plan', 'password', 'expires'], ['admin']);
    required(flags, 'email');
    required(flags, 'username');
    const { error, value } = userInput.validate(flags);
    if (error) throw new UsageError(error.message.replace(/"/g, ''));
    const { user, apiKey } = await createUser(value as Parameters<typeof createUser>[0]);
    return { id: user.id, username: user.username, admin: user.admin, apiKey };
  },
};

export const userAdmin: CliCommand = {
  name: 'user:admin',
  usage: 'user:admin --user ID --on|--off',
  async run(argv) {
    const flags = parseFlags(argv, ['user'], ['on', 'off']);
    const userId = positiveInt(flags, 'user');
    if ((flags.on === 'true') === (flags.off === 'true')) {
      throw new UsageError('exactly one of --on or --off is required');
    }
    const user = await setAdmin(userId, flags.on === 'true');
    return { id: user.id, username: user.username, admin: user.admin };
  },
};

export const keyRotate: CliCommand = {
  name: 'key:rotate',
  usage: 'key:rotate --user ID',
  async run(argv) {
    const userId = positiveInt(parseFlags(argv, ['user']), 'user');
    return { id: userId, apiKey: await rotateApiKey(userId) };
  },
};
