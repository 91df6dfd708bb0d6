/** The beacon mark: a pin with radiating signal arcs. Decorative unless given a title. */
export function LogoMark({ size = 32, title }: { size?: number; title?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 48 48"
      role={title ? 'img' : undefined}
      aria-hidden={title ? undefined : true}
      aria-label={title}
      className="logo-mark"
    >
      <path
        d="M24 6c-7 0-12.5 5.4-12.5 12.3C11.5 27.5 24 42 24 42s12.5-14.5 12.5-23.7C36.5 11.4 31 6 24 6z"
        fill="currentColor"
      />
      <circle cx="24" cy="18.5" r="4.5" fill="var(--logo-dot, #fff)" />
      <path
        d="M7.5 11a19 19 0 0 0 0 15M40.5 11a19 19 0 0 1 0 15"
        fill="none"
        stroke="currentColor"
        strokeWidth="3"
        strokeLinecap="round"
        opacity=".55"
      />
    </svg>
  );
}
