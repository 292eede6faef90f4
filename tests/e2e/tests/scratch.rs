use carrel_e2e::{testid, App};
#[test]
fn scratch() {
    let dir = std::path::PathBuf::from(std::env::var("D").unwrap());
    let app = App::launch(&dir).unwrap();
    let item = app.wait_for(&testid("server-item")).unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    for sel in [testid("server-item"), ".server-name".into(), testid("server-list"), testid("add-server-button"), testid("server-card"), "aside".into()] {
        let e = app.find(&sel).unwrap();
        eprintln!("{sel}: text={:?} displayed={:?}", e.text(), e.is_displayed());
    }
    for css in ["hidden", "clip", "visible"] {
        app.execute("document.querySelectorAll('.server-name').forEach(n => n.style.overflow = arguments[0]); return null", vec![serde_json::json!(css)]).unwrap();
        let e = app.find(".server-name").unwrap();
        eprintln!("STYLE {css}: text={:?} displayed={:?}", e.text(), e.is_displayed());
    }
    eprintln!("{:?}", app.execute("const e = arguments[0]; const out = []; for (let n = e; n; n = n.parentElement) { const cs = getComputedStyle(n); out.push([n.tagName, n.className, cs.opacity, cs.visibility, cs.display, cs.overflow, cs.contentVisibility, n.getBoundingClientRect().width, n.getBoundingClientRect().height].join(' ')); } return out.concat([e.innerText]);", vec![item.as_arg()]));
    eprintln!("{:?}", app.execute("return Array.from(document.querySelectorAll('.server-text, .server-name, .server-host')).map(n => { const cs = getComputedStyle(n); const r = n.getBoundingClientRect(); return [n.className, cs.display, cs.overflow, cs.whiteSpace, cs.textOverflow, cs.minWidth, cs.position, cs.clip, cs.clipPath, cs.transform, r.x, r.y, r.width, r.height].join(' | '); })", vec![]));
}
