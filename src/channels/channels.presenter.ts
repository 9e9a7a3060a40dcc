import { formatDate } from '../shared/format/dates';
import type { ChannelRecord } from './channel.model';
import type { ChannelItemView } from './channel-items';

/** A channel in the list and in the add response (4.7). */
export function presentChannel(channel: ChannelRecord) {
  return {
    id: channel.id,
    name: channel.name,
    description: channel.description,
    color: channel.color,
    starred: channel.starred,
  };
}

export function presentChannelItem(item: ChannelItemView) {
  return {
    type: item.type,
    id: item.id,
    title: item.title,
    preview: item.preview,
    link: item.link,
    date: formatDate(item.date),
  };
}
