import { importCommand } from '../imports/imports.cli';
import { overlayAdd } from '../overlays/overlays.cli';
import { splashAdd } from '../splash/splash.cli';
import { keyRotate, userAdmin, userCreate } from '../users/users.cli';
import type { CliCommand } from './command';

/** Every operator command; a resource adds its own by listing it here. */
export const commands: readonly CliCommand[] = [
  userCreate,
  userAdmin,
  keyRotate,
  overlayAdd,
  splashAdd,
  importCommand,
];
