use armature::Scene;
use armature::geometry::query::{DistanceWorkspace, MeshObject, capped_distance};
use armature::kinematics::InBetweenMotion;
fn main() {
    let scene = Scene::from_file("data/scenes/puma_pipes.ron").unwrap();
    let args: Vec<String> = std::env::args().collect();
    let q0: Vec<f64> = args[1].split(' ').map(|x| x.parse().unwrap()).collect();
    let q1: Vec<f64> = args[2].split(' ').map(|x| x.parse().unwrap()).collect();
    let t: f64 = args[3].parse().unwrap();
    let tree = scene.body().tree();
    let m = InBetweenMotion::new(tree, &q0, &q1).unwrap();
    let mut poses = vec![glam::DAffine3::IDENTITY; tree.len()];
    m.poses_at(t, &mut poses).unwrap();
    let mut ws = DistanceWorkspace::new();
    for (l, g) in scene.body().links().iter().enumerate() {
        let Some(g) = g else { continue };
        for o in scene.obstacles() {
            let og = o.geometry();
            let a = MeshObject::new(&g.mesh, &g.rss_tree, poses[l]).unwrap();
            let b = MeshObject::new(&og.mesh, &og.rss_tree, o.pose_at(0.0)).unwrap();
            let d = capped_distance(&a, &b, 0.5, 0.2, &mut ws, None).unwrap();
            if d.lower_bound < 0.2 {
                println!(
                    "link {l} ({} tris) vs {} ({} tris): lower {:.5} nearest {:?} bv {} tri {}",
                    g.mesh.num_triangles(),
                    o.name(),
                    og.mesh.num_triangles(),
                    d.lower_bound,
                    d.nearest.map(|n| n.distance),
                    d.stats.bv_tests,
                    d.stats.triangle_tests
                );
            }
        }
    }
}
