import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';

export function NotFoundPage() {
  return (
    <>
      <PageHeading title="Page not found">Page not found</PageHeading>
      <p>
        There is no such page in the dashboard. Go to your <Link to="contract">contract</Link>.
      </p>
    </>
  );
}
