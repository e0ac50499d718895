/**
 * Before the first call: when the browser blocks sound until the agent interacts with the page
 * (autoplay policy; a console just reloaded after login is in that state), the ringtone of the
 * next lead would be silent. This line says so and offers a one-click unlock; any click or key
 * press in the page lifts the block too, and the line goes away.
 */
import { useMutation } from '@tanstack/react-query';
import { SOUND_BLOCKED_TEXT, SOUND_UNLOCK_LABEL } from '../constants';
import { useServices, useSoundPolicy } from '../use-services';

/** See the module comment. */
export function SoundBlockedNotice() {
  const { soundGate } = useServices();
  const policy = useSoundPolicy();
  const unlock = useMutation({ mutationFn: () => soundGate.unlock() });
  if (policy === 'allowed') return null;
  return (
    <div className="banner banner-warning sound-blocked" role="alert">
      <span>{SOUND_BLOCKED_TEXT}</span>
      <button
        type="button"
        className="btn btn-primary"
        disabled={unlock.isPending}
        onClick={() => unlock.mutate()}
      >
        {SOUND_UNLOCK_LABEL}
      </button>
    </div>
  );
}
