import type { User } from '@leadline/contracts';
import { useQuery } from '@tanstack/react-query';
import { Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { userQuery } from '../api/queries';
import type { ConsoleSnapshot } from '../console/console-controller';
import { APP_STATUS_BY_VIEW, type ConsoleView } from '../console/console-machine';
import { parseTelLink, type TelLink } from '../console/outbound-call';
import { APP_VERSION } from '../constants';
import { errorMessage } from '../errors';
import { NetworkError } from '../api/api-client';
import { PhoneOwnerContext, usePhoneOwnerElection } from '../phone-owner/use-phone-owner';
import { useConsoleSnapshot, useOnline, useServices } from '../use-services';
import { DispositionView } from '../views/disposition-view';
import { SmsView, TagsView } from '../views/follow-up-views';
import { LeadCard } from '../views/lead-card';
import { OutboxStatus } from '../views/outbox-status';
import { LoginView } from '../views/login-view';
import { NavBar } from './nav-bar';
import { NoteView } from '../views/note-view';
import { OnCallView } from '../views/on-call-view';
import { RingingView } from '../views/ringing-view';
import { SoundBlockedNotice } from '../views/sound-blocked-notice';
import { DialingView } from '../views/dialing-view';
import { ThankYouView } from '../views/thank-you-view';
import { LoadingView, WaitingView, type WaitingViewProps } from '../views/waiting-view';

/** The admin area's element id (the Admin entry controls it). */
const ADMIN_AREA_ID = 'admin-area';

/** The floor's element id (the Floor entry controls it). */
const FLOOR_AREA_ID = 'floor-area';

// The admin screens are for an account's admins only: their code loads when first opened.
const AdminArea = lazy(() =>
  import('../admin/admin-area').then((module) => ({ default: module.AdminArea })),
);
// Likewise the floor, for supervisors and admins.
const FloorArea = lazy(() =>
  import('../floor/floor-area').then((module) => ({ default: module.FloorArea })),
);

/** The roles that see the floor (issue 39). */
const FLOOR_ROLES: ReadonlySet<string> = new Set(['supervisor', 'admin']);

/**
 * The one screen: navigation bar, the banner, the view of the current console state, and the
 * version label. Loads the user; starts the softphone once there is one and this tab owns the
 * phone (one tab of the agent's does; the others show its state: `phone-owner/`).
 */
export function ConsoleScreen() {
  const { api, controller, platform, writes, soundGate, realtime, firstView } = useServices();
  const snapshot = useConsoleSnapshot();
  const userResult = useQuery(userQuery(api));
  // `?url=tel:/…` opens New Call once (spec section 2); anything else in `url` is ignored.
  const [launch, setLaunch] = useState<TelLink>(() => parseTelLink(platform.launchUrl));
  const onLaunchHandled = useCallback(() => setLaunch({ kind: 'none' }), []);
  const user = userResult.data ?? null;
  const sessionUser = useSessionUser(user);
  const noSession = userResult.isError || (userResult.isSuccess && user === null);
  const online = useOnline();
  const unreachable = userResult.isPending && userResult.failureReason instanceof NetworkError;
  const { refetch } = userResult;
  const { phoneOwner, ownership } = usePhoneOwnerElection(user?.id ?? null, snapshot);
  const ownsPhone = ownership.state === 'owner';

  useEffect(() => {
    // Back online while the user could not be loaded: try now rather than at the next back-off.
    if (online && unreachable) void refetch();
  }, [online, unreachable, refetch]);

  useEffect(() => {
    if (noSession) controller.userMissing();
  }, [noSession, controller]);

  // The session check has answered: the login view or the console is on screen from now on.
  const checked = !userResult.isPending;
  useEffect(() => {
    if (checked) firstView.markShown();
  }, [checked, firstView]);

  const sessionError = userResult.error;
  useEffect(() => {
    // Any failed user fetch shows the login view (spec section 4); keep the reason for support.
    if (sessionError) platform.log.error(`Loading the user failed: ${errorMessage(sessionError)}`);
  }, [sessionError, platform]);

  useEffect(() => {
    // Only the owning tab registers, rings and takes the microphone; losing the phone stops it.
    if (!sessionUser || !ownsPhone) return;
    controller.startPhone(sessionUser);
    return () => controller.stopPhone();
  }, [sessionUser, ownsPhone, controller]);

  const phoneReady = snapshot.phone === 'ready';
  useEffect(() => {
    if (!sessionUser || !ownsPhone) return;
    // The browser may block the ringtone until the agent interacts (autoplay): say so before the
    // first call. Read again once the phone is ready (a page using the microphone may play).
    soundGate.start();
    return () => soundGate.stop();
  }, [sessionUser, ownsPhone, phoneReady, soundGate]);

  useEffect(() => {
    if (!sessionUser) return;
    // Sends what this user's earlier page left unsent, then each new after-call write.
    writes.start(sessionUser.id);
    return () => void writes.stop();
  }, [sessionUser, writes]);

  useEffect(() => {
    if (!sessionUser) return;
    // Teammates' and this agent's status, live; the agent lists poll until it is connected.
    realtime.start(api.realtime);
    return () => realtime.stop();
  }, [sessionUser, realtime, api]);

  useEffect(() => {
    if (launch.kind === 'invalid') platform.log.info(`Ignored the launch link: ${launch.reason}`);
  }, [launch, platform]);

  const { banner, view } = snapshot.console;
  // Admins' Admin entry (issue 37) and supervisors' and admins' Floor (issue 39): the open area
  // takes the waiting view's place; a call's views win over it (it is hidden, and kept, until
  // the console waits again).
  const [area, setArea] = useState<'admin' | 'floor' | null>(null);
  const isAdmin = user?.role === 'admin';
  const seesFloor = user !== null && FLOOR_ROLES.has(user.role);
  const adminOpen = area === 'admin';
  const adminShown = isAdmin && adminOpen && view !== 'login';
  const floorShown = seesFloor && area === 'floor' && view !== 'login';
  const adminInView = adminShown && view === 'waiting';
  const floorInView = floorShown && view === 'waiting';
  const entry = (name: 'admin' | 'floor', panelId: string): WaitingViewProps['admin'] => ({
    open: area === name,
    panelId,
    onToggle: () => setArea((open) => (open === name ? null : name)),
    onClose: () => setArea((open) => (open === name ? null : open)),
  });
  const admin = isAdmin ? entry('admin', ADMIN_AREA_ID) : null;
  const floor = seesFloor ? entry('floor', FLOOR_AREA_ID) : null;
  return (
    <PhoneOwnerContext value={phoneOwner}>
      <div className="shell" data-app-status={APP_STATUS_BY_VIEW[view]}>
        <NavBar user={user} />
        <main className={`console${adminInView || floorInView ? ' is-wide' : ''}`}>
          <div
            className={`banner banner-status${banner ? '' : ' is-empty'}${view === 'ringing' || view === 'dialing' ? ' is-incoming' : ''}`}
            role="status"
            aria-live="polite"
            aria-label="Call status"
          >
            {banner}
          </div>
          {user && ownsPhone && view !== 'login' && <SoundBlockedNotice />}
          {adminShown && (
            <Suspense fallback={<AreaLoading id={ADMIN_AREA_ID} hidden={!adminInView} />}>
              <AdminArea id={ADMIN_AREA_ID} hidden={!adminInView} onClose={() => setArea(null)} />
            </Suspense>
          )}
          {floorShown && user && (
            <Suspense fallback={<AreaLoading id={FLOOR_AREA_ID} hidden={!floorInView} />}>
              <FloorArea
                id={FLOOR_AREA_ID}
                user={user}
                hidden={!floorInView}
                onClose={() => setArea(null)}
              />
            </Suspense>
          )}
          <CurrentView
            admin={admin}
            floor={floor}
            snapshot={snapshot}
            user={user}
            unreachable={unreachable}
            launchNumber={launch.kind === 'call' ? launch.number : null}
            onLaunchHandled={onLaunchHandled}
          />
        </main>
        <footer className="footer">
          <span>Leadline</span> <span className="version">v{APP_VERSION}</span>
          <OutboxStatus />
        </footer>
      </div>
    </PhoneOwnerContext>
  );
}

/** An area (Admin, Floor) while its code loads: its entry controls this id meanwhile. */
function AreaLoading({ id, hidden }: { readonly id: string; readonly hidden: boolean }) {
  return (
    <section id={id} className="panel" aria-busy="true" hidden={hidden}>
      <p className="muted" role="status">
        Loading…
      </p>
    </section>
  );
}

/**
 * The signed-in user as first loaded, the same object until another user (or none) is loaded:
 * the cached user changes with the agent's status (nav bar, realtime events) and Auto Accept,
 * and none of that may restart the phone, the outbox or the realtime feed.
 */
function useSessionUser(user: User | null): User | null {
  const [kept, setKept] = useState(user);
  if ((kept?.id ?? null) === (user?.id ?? null)) return kept;
  setKept(user);
  return user;
}

/** What the current view needs from the screen. */
interface ViewContext {
  readonly snapshot: ConsoleSnapshot;
  /** The Admin entry of the waiting view (admins only). */
  readonly admin: WaitingViewProps['admin'];
  /** The Floor entry of the waiting view (supervisors and admins). */
  readonly floor: WaitingViewProps['floor'];
  readonly launchNumber: string | null;
  readonly onLaunchHandled: () => void;
}

function CurrentView({
  admin,
  floor,
  snapshot,
  user,
  unreachable,
  launchNumber,
  onLaunchHandled,
}: ViewContext & { readonly user: User | null; readonly unreachable: boolean }) {
  const state = snapshot.console;
  if (state.view === 'login') return <LoginView />;
  if (!user) return <LoadingView unreachable={unreachable} />;
  return (
    <>
      {state.call && state.view !== 'waiting' && <LeadCard call={state.call} user={user} />}
      <ViewOf
        admin={admin}
        floor={floor}
        view={state.view}
        user={user}
        snapshot={snapshot}
        launchNumber={launchNumber}
        onLaunchHandled={onLaunchHandled}
      />
    </>
  );
}

function ViewOf({
  admin,
  floor,
  view,
  user,
  snapshot,
  launchNumber,
  onLaunchHandled,
}: ViewContext & { readonly view: Exclude<ConsoleView, 'login'>; readonly user: User }) {
  switch (view) {
    case 'waiting':
      return (
        <WaitingView
          phone={snapshot.phone}
          notice={snapshot.console.notice}
          user={user}
          launchNumber={launchNumber}
          onLaunchHandled={onLaunchHandled}
          admin={admin}
          floor={floor}
        />
      );
    case 'ringing':
      return <RingingView />;
    case 'dialing': {
      const call = snapshot.console.call?.call;
      return (
        <DialingView
          number={
            call?.lead?.phone_number_formatted ??
            call?.phone_number_formatted ??
            call?.phone_number ??
            null
          }
        />
      );
    }
    case 'oncall':
      return <OnCallView connectedAtMs={snapshot.console.connectedAtMs ?? 0} user={user} />;
    case 'disposition':
      return <DispositionView />;
    case 'disposition2':
      return <TagsView tags={snapshot.console.call?.call.profile?.tags ?? []} />;
    case 'sms':
      return <SmsView initialText={snapshot.console.followUps.smsText} />;
    case 'thankyou':
      return <ThankYouView />;
    case 'note':
      return <NoteView />;
  }
}
