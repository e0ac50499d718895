/**
 * Errors of the media engine: one table of numeric codes and stable names, one base class.
 * Codes live in the 53xxx range so they never collide with the spec's 31xxx/20xxx SDK codes.
 */

/** Every error the engine raises, by stable name. */
export const MEDIA_ERRORS = {
  /** A command was sent while the engine was not running (before `start()`, after `close()` or a crash). */
  EngineNotRunning: { code: 53_001, message: 'The media engine is not running' },
  /** The media worker could not start. */
  WorkerStartFailed: { code: 53_002, message: 'The media worker failed to start' },
  /** The media worker stopped unexpectedly; every call it carried has ended. */
  WorkerCrashed: { code: 53_003, message: 'The media worker stopped unexpectedly' },
  /** The worker answered in a way the protocol does not allow (a bug). */
  ProtocolViolation: { code: 53_004, message: 'The media worker sent an unexpected reply' },
  /** The worker failed to carry out a command for a reason of its own (a bug). */
  InternalError: { code: 53_005, message: 'The media worker failed to carry out the command' },
  /** A lifecycle event arrived in a state that does not accept it. */
  IllegalTransition: { code: 53_101, message: 'Illegal state transition' },
  /** A participant id was reused; ids are unique for the engine's lifetime. */
  ParticipantExists: { code: 53_102, message: 'The participant id is already in use' },
  /** The leg was removed, or failed, before its negotiation finished. */
  LegClosed: { code: 53_103, message: 'The leg closed before negotiation finished' },
  /** The remote SDP has no audio section with PCMU/8000, the only codec the engine speaks. */
  NoCommonCodec: { code: 53_201, message: 'The remote description offers no PCMU/8000 audio' },
  /** werift rejected the remote description or failed to create the local one. */
  NegotiationFailed: { code: 53_202, message: 'WebRTC negotiation failed' },
} as const satisfies Record<string, { code: number; message: string }>;

/** Stable name of a media error. */
export type MediaErrorName = keyof typeof MEDIA_ERRORS;

/** A media error as it crosses the worker boundary. */
export interface SerializedMediaError {
  name: MediaErrorName;
  message: string;
}

/** Base class of every error the engine raises: `Name (code): message`. */
export class MediaError extends Error {
  /** Stable name, a key of {@link MEDIA_ERRORS}. */
  override readonly name: MediaErrorName;
  /** Numeric code from {@link MEDIA_ERRORS}. */
  readonly code: number;

  /** Creates the error `name`, with an optional detail appended to the table's message. */
  constructor(name: MediaErrorName, detail?: string, options?: ErrorOptions) {
    const entry = MEDIA_ERRORS[name];
    super(detail ? `${entry.message}: ${detail}` : entry.message, options);
    this.name = name;
    this.code = entry.code;
  }

  override toString(): string {
    return `${this.name} (${this.code}): ${this.message}`;
  }

  /** The error as it is posted between threads. */
  serialize(): SerializedMediaError {
    return { name: this.name, message: this.message };
  }

  /** Rebuilds an error posted by {@link serialize}, keeping its name, code and message. */
  static deserialize(error: SerializedMediaError): MediaError {
    const rebuilt = new MediaError(error.name);
    rebuilt.message = error.message;
    return rebuilt;
  }

  /** Wraps a foreign error (kept as `cause`) as the media error `name`. */
  static wrap(name: MediaErrorName, cause: unknown): MediaError {
    if (cause instanceof MediaError) return cause;
    return new MediaError(name, cause instanceof Error ? cause.message : String(cause), { cause });
  }
}
