import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Avatar } from './avatar';

// Spec §2, lead card: "avatar (falls back to a generated initials image)".
describe('Avatar (spec §2: falls back to a generated initials image)', () => {
  it('shows the initials of the name when there is no picture', () => {
    const { container } = render(<Avatar name="Jo Rivera" src={null} size={56} />);
    expect(container).toHaveTextContent(/^JR$/);
    expect(container.querySelector('img')).toBeNull();
  });

  it('shows the picture, and the initials once the picture fails to load', () => {
    const { container } = render(
      <Avatar name="Jo Rivera" src="https://example.com/jo.png" size={56} />,
    );
    const picture = container.querySelector('img');
    expect(picture).toHaveAttribute('src', 'https://example.com/jo.png');
    expect(container).not.toHaveTextContent('JR');
    fireEvent.error(picture!);
    expect(container).toHaveTextContent(/^JR$/);
    expect(container.querySelector('img')).toBeNull();
  });

  it('is decorative: the name is shown beside it, not read twice', () => {
    render(<Avatar name="Jo Rivera" src={null} size={56} />);
    expect(screen.queryByText('JR')).toHaveAttribute('aria-hidden', 'true');
  });
});
