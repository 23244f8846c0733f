import { Link } from 'react-router'
import { anonymous, useSessionState } from '../session.tsx'
import { Field, Form, formFields } from '../ui.tsx'

function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <div className="brand">
          <img src="/favicon.svg" alt="" width={32} height={32} />
          <span>Business Platform</span>
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  )
}

export function SignInPage() {
  const { signIn } = useSessionState()
  return (
    <AuthFrame title="Sign in">
      <Form
        label="Sign in"
        submitLabel="Sign in"
        submit={async (data) => {
          const { email = '', password = '' } = formFields(data)
          await signIn(await anonymous.post('/api/auth/login', { body: { email, password } }))
        }}
      >
        <Field label="E-mail">
          <input name="email" type="email" autoComplete="username" required />
        </Field>
        <Field label="Password">
          <input name="password" type="password" autoComplete="current-password" required />
        </Field>
      </Form>
      <p className="muted">
        New here? <Link to="/register">Create an organization</Link>
      </p>
    </AuthFrame>
  )
}

export function RegisterPage() {
  const { signIn } = useSessionState()
  return (
    <AuthFrame title="Create your organization">
      <Form
        label="Register"
        submitLabel="Create organization"
        submit={async (data) => {
          const { organizationName = '', name = '', email = '', password = '' } = formFields(data)
          await signIn(await anonymous.post('/api/auth/register', { body: { organizationName, name, email, password } }))
        }}
      >
        <Field label="Organization name">
          <input name="organizationName" autoComplete="organization" required />
        </Field>
        <Field label="Your name">
          <input name="name" autoComplete="name" required />
        </Field>
        <Field label="E-mail">
          <input name="email" type="email" autoComplete="email" required />
        </Field>
        <Field label="Password" hint="At least 10 characters">
          <input name="password" type="password" autoComplete="new-password" minLength={10} required />
        </Field>
      </Form>
      <p className="muted">
        Have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthFrame>
  )
}
