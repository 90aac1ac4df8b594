import LaminaGeometry
import LaminaValues

extension GraphicsContext {
    /// Adds `path` to the current path (in the current user space).
    public func addPath(_ path: Path) {
        for e in path.elements {
            switch e {
            case .move(let p): move(to: p)
            case .line(let p): addLine(to: p)
            case let .quadCurve(p, c): addQuadCurve(to: p, control: c)
            case let .curve(p, c1, c2): addCurve(to: p, control1: c1, control2: c2)
            case let .arc(c, r, a0, a1, cw): addArc(center: c, radius: r, startAngle: a0, endAngle: a1, clockwise: cw)
            case .ellipse(let r): addEllipse(in: r)
            case let .roundedRect(r, radius): addRoundedRect(r, cornerRadius: radius)
            case .close: closePath()
            }
        }
    }
}
