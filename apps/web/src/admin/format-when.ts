/**
 * An ISO time as the viewer reads it: their time zone and locale (Intl), date and time; the
 * text as sent when it is not a time.
 */
export function formatWhen(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
}
