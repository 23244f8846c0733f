import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
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
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
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

/** Asks for a reset link; the answer is the same whether or not the e-mail is known. */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState(false)
  return (
    <AuthFrame title="Reset your password">
      {sent ? (
        <p role="status">If a user has this e-mail, a link to choose a new password is on its way. It works once, within one hour.</p>
      ) : (
        <Form
          label="Reset password"
          submitLabel="Send the link"
          submit={async (data) => {
            const { email = '' } = formFields(data)
            await anonymous.post('/api/auth/password-reset', { body: { email } })
          }}
          onDone={() => setSent(true)}
        >
          <Field label="E-mail">
            <input name="email" type="email" autoComplete="username" required />
          </Field>
        </Form>
      )}
      <p className="muted">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthFrame>
  )
}

/** The page of the e-mailed link (/reset-password?token=...): sets the new password, then signing in is needed. */
export function ResetPasswordPage() {
  const [params] = useSearchParams()
  const [done, setDone] = useState(false)
  const token = params.get('token') ?? ''
  return (
    <AuthFrame title="Choose a new password">
      {done ? (
        <p role="status">Your password is changed and every session of your account has ended. <Link to="/sign-in">Sign in</Link> with the new password.</p>
      ) : !token ? (
        <p role="alert">This link has no token. Open the link of the e-mail again, or <Link to="/forgot-password">ask for a new one</Link>.</p>
      ) : (
        <Form
          label="Choose a new password"
          submitLabel="Set the password"
          submit={async (data) => {
            const { password = '' } = formFields(data)
            await anonymous.post('/api/auth/password-reset/confirm', { body: { token, password } })
          }}
          onDone={() => setDone(true)}
        >
          <Field label="New password" hint="At least 10 characters">
            <input name="password" type="password" autoComplete="new-password" minLength={10} required />
          </Field>
        </Form>
      )}
    </AuthFrame>
  )
}
