//! Generated source code as agents send it (bench input; written for this project): Python,
//! TypeScript and Rust functions with comments, string literals, and now and then a personal
//! value in a fixture or a comment, as files read by a tool, with a line-number gutter.

// The generator of `prose.rs` (loaded beside this file by the bench that uses both).
use super::prose::Rng;

const NAMES: &[&str] = &[
    "Anna Schmidt",
    "Jonas Weber",
    "Mehmet Yılmaz",
    "Sabine Müller",
];
const MAILS: &[&str] = &["anna.schmidt@example.de", "j.weber@firma-gmbh.de"];

const PYTHON: &[&str] = &[
    "def load_{n}(path, encoding=None):\n    \"\"\"Read the file and return its records.\"\"\"\n    with open(path, 'rb') as fh:\n        data = fh.read()\n    if not data:\n        return []\n    elif encoding:\n        data = data.decode(encoding)\n    return [parse(line) for line in data.splitlines()]\n",
    "class Handler{n}(BaseHandler):\n    # Retry a few times before giving up.\n    retries = 3\n\n    def handle(self, request):\n        passwd = getpass.getpass(prompt)\n        self.session = Session(self.encoding)\n        return self.session.send(request, timeout=self.timeout)\n",
    "def test_customer_{n}():\n    customer = Customer(name=\"{name}\", email=\"{mail}\")\n    assert customer.display() == \"{name}\"\n",
];

const TYPESCRIPT: &[&str] = &[
    "export async function fetch{n}(url: string, init?: RequestInit): Promise<Response> {\n  const res = await fetch(url, { ...init, headers: this.headers });\n  if (!res.ok) {\n    throw new Error(`request failed: ${res.status}`);\n  }\n  return res;\n}\n",
    "// Keeps the last value of each key.\nexport class Cache{n}<T> {\n  private readonly map = new Map<string, T>();\n  get(key: string): T | undefined {\n    return this.map.get(key);\n  }\n}\n",
];

const RUST: &[&str] = &[
    "/// Splits the input at the first separator.\npub fn split_{n}(input: &str) -> Option<(&str, &str)> {\n    let at = input.find(':')?;\n    Some((&input[..at], &input[at + 1..]))\n}\n",
    "impl Display for Record{n} {\n    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {\n        write!(f, \"{} <{}>\", self.name, self.email)\n    }\n}\n",
];

/// About `chars` code points of code, as files with a line-number gutter.
pub fn code(chars: usize) -> String {
    let mut rng = Rng(0x5eed_c0de);
    let mut out = String::new();
    let mut n = 0;
    while out.chars().count() < chars {
        let pool = [PYTHON, TYPESCRIPT, RUST][n % 3];
        let file = rng
            .pick(pool)
            .replace("{n}", &n.to_string())
            .replace("{name}", rng.pick(NAMES))
            .replace("{mail}", rng.pick(MAILS));
        for (i, line) in file.lines().enumerate() {
            out.push_str(&format!("{:>6}→{line}\n", i + 1));
        }
        out.push('\n');
        n += 1;
    }
    out
}
