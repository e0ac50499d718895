/** A view's error banner (the server's text), or nothing. */
export function ErrorBanner({ message }: { readonly message: string | null }) {
  if (!message) return null;
  return (
    <div className="banner banner-error" role="alert">
      {message}
    </div>
  );
}
