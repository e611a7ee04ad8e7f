// Word lists for generated demo data.

export const FIRST_NAMES = [
  'ada', 'alan', 'barbara', 'charles', 'dorothy', 'edsger', 'frances', 'grace', 'hedy', 'ivan',
  'john', 'katherine', 'ken', 'linus', 'margaret', 'niklaus', 'radia', 'shafi', 'tim', 'vint',
  'whitfield', 'yukihiro', 'donald', 'leslie', 'guido', 'bjarne', 'anita', 'jean', 'sophie', 'mary',
] as const;

export const LAST_NAMES = [
  'lovelace', 'turing', 'liskov', 'babbage', 'hodgkin', 'dijkstra', 'allen', 'hopper', 'lamarr',
  'sutherland', 'backus', 'johnson', 'thompson', 'torvalds', 'hamilton', 'wirth', 'perlman',
  'goldwasser', 'berners-lee', 'cerf', 'diffie', 'matsumoto', 'knuth', 'lamport', 'van-rossum',
  'stroustrup', 'borg', 'bartik', 'wilson', 'keller',
] as const;

export const CITIES = [
  'London', 'Paris', 'Berlin', 'Madrid', 'Lisbon', 'Dublin', 'Amsterdam', 'Vienna', 'Zurich',
  'Oslo', 'New York', 'Boston', 'Toronto', 'Austin', 'Sydney', 'Tokyo', 'Singapore', 'Nairobi',
] as const;

export const INDUSTRIES = ['Software', 'Retail', 'Finance', 'Healthcare', 'Education', 'Manufacturing', 'Media'] as const;

export const COMPANY_WORDS = [
  'Analytical', 'Difference', 'Engine', 'Compiler', 'Lambda', 'Kernel', 'Vector', 'Quantum', 'Signal',
  'Orbit', 'Cobalt', 'Granite', 'Harbor', 'Summit', 'Pioneer', 'Northwind', 'Blue', 'Silver',
] as const;

export const COMPANY_SUFFIXES = ['Ltd', 'Inc', 'GmbH', 'Labs', 'Systems', 'Works', 'Group'] as const;

export const EVENT_NAMES = [
  'page_viewed', 'signed_up', 'trial_started', 'purchase', 'webinar_attended', 'cart_abandoned', 'feature_used',
] as const;

export const PAGES = ['/', '/pricing', '/docs', '/blog/launch', '/signup', '/contact'] as const;
