/**
 * The on-call view's call quality notices (spec section 9's warnings; issue 35 item 5): while a
 * warning stands, one short line per kind in plain words ('Poor connection: audio may break up',
 * 'No sound from your microphone'), gone when it clears. Non-blocking: nothing to dismiss, no
 * focus taken, in the flow under the meters. The status region stays on screen, empty, between
 * notices, so screen readers announce each one as it comes.
 */
import { qualityNotices, type QualityNoticeInput } from '../console/call-quality';

/** See the module comment. */
export function CallQualityNotices({ state }: { readonly state: QualityNoticeInput }) {
  const notices = qualityNotices(state);
  return (
    <div className="quality-notices" role="status" aria-label="Call quality">
      {notices.map((notice) => (
        <p key={notice.kind} className={`quality-notice quality-notice-${notice.kind}`}>
          {notice.text}
        </p>
      ))}
    </div>
  );
}
