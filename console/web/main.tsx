// The console's page: a navigation bar and the page the route names.
import { render } from "preact";
import { keepToken } from "./api.ts";
import { ConfigurationPage } from "./config.tsx";
import { ModelPage, ModelsPage } from "./models.tsx";
import { href, useRoute } from "./router.ts";
import { RunPage, RunsPage } from "./runs.tsx";
import { StudiesPage } from "./studies.tsx";

const SECTIONS = [
  { route: "config", name: "Configuration" },
  { route: "models", name: "Models" },
  { route: "runs", name: "Runs" },
  { route: "studies", name: "Studies" },
] as const;

function App() {
  const [section = "config", id] = useRoute();
  return (
    <>
      <header>
        <strong>gg console</strong>
        <nav aria-label="Sections">
          {SECTIONS.map((entry) => (
            <a key={entry.route} href={href(entry.route)} aria-current={entry.route === section ? "page" : undefined}>
              {entry.name}
            </a>
          ))}
        </nav>
      </header>
      <main>{page(section, id)}</main>
    </>
  );
}

function page(section: string, id: string | undefined) {
  if (section === "models") return id === undefined ? <ModelsPage /> : <ModelPage id={id} />;
  if (section === "runs") return id === undefined ? <RunsPage /> : <RunPage id={id} />;
  if (section === "studies") return <StudiesPage />;
  return <ConfigurationPage />;
}

keepToken();
const root = document.getElementById("app") as HTMLElement;
// The loading line is the page's until the app renders in its place.
root.textContent = "";
render(<App />, root);
