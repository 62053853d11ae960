package io.rediskit.sample;

import java.util.Map;

import io.rediskit.id.IdGenerator;
import io.rediskit.id.IdGeneratorRegistry;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/ids/orders}: a new order id from the {@code orders} generator of {@code application.yml},
 * unique across every instance of the sample (one {@code INCRBY} per 100 ids per instance).
 */
@RestController
@RequestMapping("/api/ids")
public class IdController {

	private final IdGenerator orders;

	IdController(IdGeneratorRegistry ids) {
		this.orders = ids.get("orders");
	}

	@PostMapping("/orders")
	public Map<String, Object> nextOrderId() {
		return Map.of("id", this.orders.next());
	}

}
