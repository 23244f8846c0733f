// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { HelpdeskPage } from '../pages/Helpdesk.tsx'
