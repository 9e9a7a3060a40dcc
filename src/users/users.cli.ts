import Joi from 'joi';
import { parseFlags, positiveInt, required, UsageError } from '../cli/args';
import type { CliCommand } from '../cli/command';
import { createUser, rotateApiKey } from './users.service';

const userInput = Joi.object({
  email: Joi.string().email({ tlds: false }).max(254).required(),
  username: Joi.string()
    .pattern(/^[A-Za-z0-9_.-]{2,32}$/)
    .required()
    .messages({
      'string.pattern.base': 'username must be 2-32 letters, digits, ".", "_" or "-"',
    }),
  plan: Joi.string().pattern(/^[a-z0-9_-]{1,32}$/),
  password: Joi.string().min(8).max(1024),
  expires: Joi.date().iso(),
});

export const userCreate: CliCommand = {
  name: 'user:create',
  usage: 'user:create --email E --username U [--plan P] [--password W] [--expires ISO]',
  async run(argv) {
    const flags = parseFlags(argv, ['email', 'username', 'plan', 'password', 'expires']);
    required(flags, 'email');
    required(flags, 'username');
    const { error, value } = userInput.validate(flags);
    if (error) throw new UsageError(error.message.replace(/"/g, ''));
    const { user, apiKey } = await createUser(value as Parameters<typeof createUser>[0]);
    return { id: user.id, username: user.username, apiKey };
  },
};

export const keyRotate: CliCommand = {
  name: 'key:rotate',
  usage: 'key:rotate --user ID',
  async run(argv, context) {
    const userId = positiveInt(parseFlags(argv, ['user']), 'user');
    if (!context) throw new Error('key:rotate needs the API caches to invalidate');
    return { id: userId, apiKey: await rotateApiKey(userId, context.apiKeys) };
  },
};
