// The console's page: a navigation bar and the page the route names.
import { render } from "preact";
import { keepToken } from "./api.ts";
import { ConfigurationPage } from "./config.tsx";
import { ModelPage, ModelsPage } from "./models.tsx";
import { href, useRoute } from "./router.ts";
import { RunPage } from "./run.tsx";
import { RunsPage } from "./runs.tsx";
import { StudiesPage } from "./studies.tsx";

const SECTIONS = [
  { route: "config", name: "Configuration" },
  { route: "models", name: "Models" },
  { route: "runs", name: "Runs" },
  { route: "studies", name: "Studies" },
] as const;

function App() {
  const [section = "config", id] = useRoute();
  const known = SECTIONS.some((entry) => entry.route === section) && (id === undefined || section !== "config");
  return (
    <>
      <header>
        <strong>gg console</strong>
        <nav aria-label="Sections">
          {SECTIONS.map((entry) => (
            <a key={entry.route} href={href(entry.route)} aria-current={known && entry.route === section ? "page" : undefined}>
              {entry.name}
            </a>
          ))}
        </nav>
      </header>
      <main>{known ? page(section, id) : <NotFound />}</main>
    </>
  );
}

/** A route the page does not have: said so, with the way back. */
function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        {`The console has no page at ${location.hash}. `}
        <a href={href("config")}>Back to the Configuration</a>, or pick a section above.
      </p>
    </>
  );
}

function page(section: string, id: string | undefined) {
  if (section === "models") return id === undefined ? <ModelsPage /> : <ModelPage id={id} />;
  if (section === "runs") return id === undefined ? <RunsPage /> : <RunPage id={id} />;
  if (section === "studies") return <StudiesPage dir={id} />;
  return <ConfigurationPage />;
}

keepToken();
const root = document.getElementById("app") as HTMLElement;
// The loading line is the page's until the app renders in its place.
root.textContent = "";
render(<App />, root);
