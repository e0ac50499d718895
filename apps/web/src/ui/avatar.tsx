import { useState } from 'react';
import { avatarColour, initials } from './format';

/** Props of {@link Avatar}. */
export interface AvatarProps {
  readonly name: string;
  /** A picture URL; the initials are shown when there is none or it fails to load. */
  readonly src: string | null;
  readonly size: number;
}

/** A round picture, falling back to a generated initials image. Decorative: the name is shown beside it. */
export function Avatar({ name, src, size }: AvatarProps) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const style = { width: size, height: size, fontSize: Math.round(size * 0.4) };
  if (src && failedSrc !== src) {
    return (
      <img
        className="avatar"
        src={src}
        alt=""
        width={size}
        height={size}
        style={style}
        onError={() => setFailedSrc(src)}
      />
    );
  }
  return (
    <span
      className="avatar avatar-initials"
      style={{ ...style, background: avatarColour(name) }}
      aria-hidden="true"
    >
      {initials(name)}
    </span>
  );
}
