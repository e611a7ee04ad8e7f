/** The nine email event types, as the API spells them (shared by the client and the emulator). */
export const EMAIL_EVENT_TYPES = [
  'EMAIL_SEND',
  'EMAIL_DELIVERY',
  'EMAIL_OPEN',
  'EMAIL_CLICK',
  'EMAIL_BOUNCE',
  'EMAIL_SOFT_BOUNCE',
  'EMAIL_COMPLAINT',
  'EMAIL_UNSUBSCRIBE_ALL',
  'EMAIL_TOPIC_UNSUBSCRIBE',
] as const;
export type EmailEventType = (typeof EMAIL_EVENT_TYPES)[number];
