/**
 * Which Leadline calls Twilio still carries, from its REST API (the conference list), for the
 * recovery and the sweeper of `calls/recovery.ts`: a Leadline call is carried while a conference
 * whose FriendlyName is the call's sid is `init` (created, a participant being dialled) or
 * `in-progress`. Twilio's list filters by one status at a time, so `init` is asked first and
 * `in-progress` second: a conference alive across both requests is found whichever way it moved
 * (`init` → `in-progress` → `completed`). A few calls are asked one by one (FriendlyName and
 * Status); more, by listing the account's conferences of each status (paged, 1,000 a page).
 * Every Twilio error rejects: the caller leaves the calls as they are.
 */
import type twilio from 'twilio';
import type { CallCarrier } from '../calls/recovery';

/** Up to this many calls are asked about one by one (two requests each). */
export const ONE_BY_ONE_MAX = 10;
/** The statuses of a conference Twilio still carries, in the order they are asked. */
const CARRYING = ['init', 'in-progress'] as const;

/** The carrier port over the account's REST client. */
export function twilioCallCarrier(client: twilio.Twilio): CallCarrier {
  return {
    async carried(callSids) {
      const carried = new Set<string>();
      if (callSids.length === 0) return carried;
      if (callSids.length <= ONE_BY_ONE_MAX) {
        for (const sid of callSids) {
          for (const status of CARRYING) {
            const found = await client.conferences.list({ friendlyName: sid, status, limit: 1 });
            if (found.length > 0) {
              carried.add(sid);
              break;
            }
          }
        }
        return carried;
      }
      const wanted = new Set(callSids);
      for (const status of CARRYING) {
        for (const conference of await client.conferences.list({ status, pageSize: 1000 })) {
          if (wanted.has(conference.friendlyName)) carried.add(conference.friendlyName);
        }
      }
      return carried;
    },
    async endedAt(callSid) {
      const ended = await client.conferences.list({
        friendlyName: callSid,
        status: 'completed',
        limit: 20,
      });
      const times = ended
        .map((conference) => conference.dateUpdated)
        .filter((at): at is Date => at instanceof Date && !Number.isNaN(at.getTime()));
      return times.length > 0 ? new Date(Math.max(...times.map((at) => at.getTime()))) : null;
    },
  };
}
