import { formatDateTime } from '../shared/format/dates';
import { DEFAULT_SPLASH_COUNTER, type SplashPageRecord } from './splash-page.model';

/** A custom splash page as the spec lists it (4.8), with its content added. */
export function presentSplash(page: SplashPageRecord) {
  return {
    id: page.id,
    name: page.name,
    date: formatDateTime(page.createdAt),
    title: page.title ?? '',
    message: page.message ?? '',
    image: page.image ?? '',
    link: page.link ?? '',
    button: page.button ?? '',
    counter: page.counter ?? DEFAULT_SPLASH_COUNTER,
  };
}
