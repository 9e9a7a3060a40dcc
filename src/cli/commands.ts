import { keyRotate, userCreate } from '../users/users.cli';
import type { CliCommand } from './command';

/** Every operator command; a resource adds its own by listing it here. */
export const commands: readonly CliCommand[] = [userCreate, keyRotate];
