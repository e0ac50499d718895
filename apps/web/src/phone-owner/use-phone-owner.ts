/**
 * The phone owner in React: {@link usePhoneOwnerElection} runs this tab's {@link PhoneOwner} for
 * the signed-in user (the console screen starts the softphone only while it says `owner`), and
 * {@link PhoneOwnerContext} hands it to the views that show another tab's phone and offer
 * "Use phone here".
 */
import { createContext, use, useEffect, useState, useSyncExternalStore } from 'react';
import type { ConsoleSnapshot } from '../console/console-controller';
import { useServices } from '../use-services';
import { PhoneOwner, type PhoneOwnerSnapshot } from './phone-owner';
import { ACTIVITY_BY_VIEW } from './phone-owner-messages';

/** This tab's {@link PhoneOwner}, for the views under the console screen (null outside it). */
export const PhoneOwnerContext = createContext<PhoneOwner | null>(null);

/**
 * Creates this tab's {@link PhoneOwner}, runs the election while `userId` is signed in, reports
 * the console's phone status and view to the other tabs, and reloads this tab when another one
 * logs out (the session is gone for every tab; the reload lands on the login view).
 */
export function usePhoneOwnerElection(
  userId: number | null,
  snapshot: ConsoleSnapshot,
): { readonly phoneOwner: PhoneOwner; readonly ownership: PhoneOwnerSnapshot } {
  const { platform } = useServices();
  const [phoneOwner] = useState(
    () => new PhoneOwner({ tabs: platform.tabs, clock: platform.clock, log: platform.log }),
  );
  const ownership = useSyncExternalStore(phoneOwner.subscribe, phoneOwner.getSnapshot);

  useEffect(() => {
    if (userId === null) return;
    phoneOwner.start(userId);
    return () => phoneOwner.stop();
  }, [userId, phoneOwner]);

  const { phone } = snapshot;
  const activity = ACTIVITY_BY_VIEW[snapshot.console.view];
  useEffect(() => phoneOwner.report({ phone, activity }), [phoneOwner, phone, activity]);

  useEffect(() => phoneOwner.onLoggedOut(() => platform.reload()), [phoneOwner, platform]);

  return { phoneOwner, ownership };
}

/**
 * The phone owner's snapshot and "Use phone here", for a view under the console screen; null
 * where there is none (a view rendered on its own).
 */
export function usePhoneOwner(): {
  readonly ownership: PhoneOwnerSnapshot;
  readonly takeOver: () => void;
} | null {
  const phoneOwner = use(PhoneOwnerContext);
  const ownership = useSyncExternalStore(
    phoneOwner?.subscribe ?? subscribeToNothing,
    phoneOwner?.getSnapshot ?? noSnapshot,
  );
  if (!phoneOwner || !ownership) return null;
  return { ownership, takeOver: () => phoneOwner.takeOver() };
}

const subscribeToNothing = () => () => undefined;
const noSnapshot = () => null;
