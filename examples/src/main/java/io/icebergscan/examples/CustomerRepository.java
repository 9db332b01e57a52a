package io.icebergscan.examples;

import java.util.List;

import io.icebergscan.planning.data.IcebergRepository;
import org.springframework.data.domain.Limit;

/**
 * The governed demo customers: read with the read restrictions the catalog serves the identity the call runs as, the
 * caller's in the {@code callers} profile. A row filter drops rows before the query's predicate sees them.
 */
interface CustomerRepository extends IcebergRepository<Customer> {

  /** At most {@code limit} customers of {@code country} that the caller may see. */
  List<Customer> findByCountry(String country, Limit limit);
}
